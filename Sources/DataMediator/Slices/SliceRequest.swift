/// What a request says about the slice it reads or writes: the view parameters of its query
/// string, raw, and the claims of its verified token.
public struct SliceRequest: Sendable, Hashable {
    /// Each query parameter's values by name, as the client sent them (more than one when
    /// a name is repeated).
    public let parameters: [String: [String]]
    /// The claims of the caller's verified token; nil when none was sent.
    public let claims: [String: JSONValue]?
    /// Whether the caller reads every slice of a scoped list (an operator's token): the
    /// scope selects none then.
    public let wholeScope: Bool

    /// A request's slice.
    public init(parameters: [String: [String]] = [:], claims: [String: JSONValue]? = nil, wholeScope: Bool = false) {
        self.parameters = parameters
        self.claims = claims
        self.wholeScope = wholeScope
    }

    /// No parameters and no token: the whole of an unscoped view.
    public static let whole = SliceRequest()
}

extension ListDefinition {
    /// The view named `name` narrowed to the slice the request selects: each parameter given
    /// (converted to its field's type) and the list's scope (the caller's claim).
    ///
    /// - Throws: `unknownView`; `badParameter` for a required parameter missing, one given
    ///   twice, or one that does not convert; `unauthorized` for a scoped list without a
    ///   token or whose token lacks the claim.
    public func view(named name: String?, slice request: SliceRequest) throws(DataMediatorError) -> View {
        let view = try view(named: name)
        var values: [String: JSONValue] = [:]
        for parameter in view.parameters {
            let given = request.parameters[parameter.name] ?? []
            guard given.count <= 1 else {
                throw DataMediatorError(.badParameter, "Parameter '\(parameter.name)' is given more than once.")
            }
            guard let text = given.first else {
                guard !parameter.isRequired else {
                    throw DataMediatorError(
                        .badParameter,
                        "View '\(view.name)' of list '\(self.name)' needs parameter '\(parameter.name)'."
                    )
                }
                continue
            }
            values[parameter.field] = try parameter.value(of: text)
        }
        if let scope, !request.wholeScope { values[scope.field] = try scopeValue(request.claims) }
        return view.sliced(values)
    }

    /// The value of the list's scope field for the caller: their token's claim.
    ///
    /// - Throws: `unauthorized` when there is no token, it lacks the claim, the claim is
    ///   empty, or it is not a value of the field's type.
    public func scopeValue(_ claims: [String: JSONValue]?) throws(DataMediatorError) -> JSONValue {
        guard let scope else { return .null }
        guard let claims else {
            throw DataMediatorError(
                .unauthorized,
                "List '\(name)' shows each caller their own items: send 'Authorization: Bearer <JWT>'."
            )
        }
        guard let claim = claims[scope.claim], claim != .null else {
            throw DataMediatorError(
                .unauthorized,
                "The token has no claim '\(scope.claim)', which list '\(name)' needs."
            )
        }
        // The claim must be a value of the field's type (RFC 7519's `sub` is text): a number
        // claimed for a text field, or an object, is refused rather than matched to nothing.
        let type = rules.types[scope.field]
        // A claim names one caller as it is spelt: text for an integer field is taken in its
        // one decimal spelling only ("07" or "+7" would be another caller than "7").
        if type == .integer, case .string(let text) = claim, let whole = Int64(text), String(whole) == text {
            return .integer(whole)
        }
        // An empty claim names no one: were it taken, every such token would share one
        // slice, with the items an operator stored without an owner.
        if claim == .string("") {
            throw DataMediatorError(
                .unauthorized,
                "The token's claim '\(scope.claim)' is empty; list '\(name)' needs it to name the caller."
            )
        }
        if claim.holdsNUL {
            throw DataMediatorError(.unauthorized, "The token's claim '\(scope.claim)' \(JSONValue.nulDetail).")
        }
        switch (type, claim) {
        // A number field's slice is bound to its values as a number (the items a write
        // stores and logs hold `5.0` for a claim of `5`, `0` for `-0`).
        // A whole number no double holds exactly (past 2^53) is refused: as a number it
        // would be a neighbour's too (9007199254740993 is 9007199254740992), one slice for both.
        case (.number?, .integer(let whole)):
            guard let real = Double(exactly: whole) else {
                throw DataMediatorError(
                    .unauthorized,
                    "The token's claim '\(scope.claim)' is \(whole), which number field '\(scope.field)' of list '\(name)' cannot hold exactly (it would be another caller's too); declare the field integer."
                )
            }
            return .number(real)
        case (.number?, .number(let real)) where real == 0:
            return .number(0)
        case (let type?, _) where type.accepts(claim):
            return claim
        case (nil, .string), (nil, .integer), (nil, .number), (nil, .bool):
            return claim
        default:
            break
        }
        throw DataMediatorError(
            .unauthorized,
            "The token's claim '\(scope.claim)' is not \(type?.description ?? "a string, number or boolean"), as field '\(scope.field)' of list '\(name)' needs."
        )
    }
}
