/// What a list is: its name, title, id field, views and page sizes.
public struct ListDefinition: Sendable {
    /// The list's name, as in `/lists/{list}`.
    public let name: String
    /// A human-readable title.
    public let title: String
    /// The field that holds each item's unique id.
    public let idField: String
    /// The field that holds each item's revision, if the source keeps one.
    public let revisionField: String?
    /// The views, in declaration order; exactly one is the default.
    public let views: [View]
    /// Page sizes.
    public let limits: PageLimits
    /// Whether items can be written through the API.
    public let isWritable: Bool
    /// What written items must look like.
    public private(set) var rules: FieldRules
    /// How many versions of changes a writable list keeps for `changes` and `events`.
    public let history: Int
    /// A composite list's children as its description shows them (an array of objects);
    /// nil for every other list.
    public let composition: JSONValue?
    /// The field that must equal a claim of the caller's token; nil for a list everyone
    /// reads whole.
    public let scope: ListScope?

    /// Creates a list definition. The first view is the default when none is marked.
    public init(
        name: String,
        title: String,
        idField: String,
        revisionField: String? = nil,
        views: [View],
        limits: PageLimits = PageLimits(),
        isWritable: Bool = false,
        rules: FieldRules = FieldRules(),
        history: Int = 10_000,
        composition: JSONValue? = nil,
        scope: ListScope? = nil
    ) {
        self.name = name
        self.title = title
        self.idField = idField
        self.revisionField = revisionField
        self.views = views
        self.limits = limits
        self.isWritable = isWritable
        // The fields the views sort and section by are key fields, whose text is bounded,
        // alone and (a view's sort keys, which its cursors carry) together.
        let keys = views.flatMap { view in view.sort.map(\.field) + (view.section.map { [$0.field] } ?? []) }
        self.rules = FieldRules(
            types: rules.types,
            required: rules.required,
            keyFields: Set(keys),
            cursorKeys: Self.cursorKeys(of: views, idField: idField)
        )
        self.history = max(1, history)
        self.composition = composition
        self.scope = scope
    }

    /// The fields each of `views`' cursors carries besides the id: its sort keys.
    public static func cursorKeys(of views: [View], idField: String) -> [[String]] {
        views.map { view in view.sort.map(\.field).filter { $0 != idField } }
    }

    /// This list with the cursor keys of other lists over the same table among its rules:
    /// an item written through this list is paged through theirs too.
    public func sharing(cursorKeys others: [[String]]) -> ListDefinition {
        var shared = self
        shared.rules = rules.sharing(cursorKeys: others)
        return shared
    }

    /// The view served when a request names none.
    public var defaultView: View? {
        views.first(where: \.isDefault) ?? views.first
    }

    /// The view named `name`, or the default view when `name` is nil.
    ///
    /// - Throws: `unknownView` when the list has no such view (an empty name included).
    public func view(named name: String?) throws(DataMediatorError) -> View {
        if let name {
            if let view = views.first(where: { $0.name == name }) { return view }
        } else if let view = defaultView {
            return view
        }
        let known = views.map { "'\($0.name)'" }.joined(separator: ", ")
        throw DataMediatorError(
            .unknownView,
            "List '\(self.name)' has no view '\(name ?? "")'; its views are \(known)."
        )
    }
}

/// How many items a page holds: the default when a request gives no `limit`, and the
/// maximum a larger `limit` is clamped to.
public struct PageLimits: Sendable, Hashable {
    /// The page size when none is asked for.
    public let defaultLimit: Int
    /// The largest page size served.
    public let maximumLimit: Int

    /// The most items any page may hold, whatever a list's config says: a page is built in
    /// memory and sent whole, so its size bounds what one request costs.
    public static let upperBound = 1_000

    /// Creates page limits; both are at least 1 and at most ``upperBound``, and the default
    /// is at most the maximum.
    public init(defaultLimit: Int = 20, maximumLimit: Int = 100) {
        self.maximumLimit = min(max(1, maximumLimit), Self.upperBound)
        self.defaultLimit = min(max(1, defaultLimit), self.maximumLimit)
    }

    /// The page size for a raw `limit` parameter.
    ///
    /// - Throws: `badLimit` when it is empty, not a whole number, or below 1. A larger
    ///   number than the maximum, however large, is clamped to the maximum.
    public func resolve(_ raw: String?) throws(DataMediatorError) -> Int {
        guard let raw else { return defaultLimit }
        let negative = raw.hasPrefix("-")
        let digits = negative ? raw.utf8.dropFirst() : raw.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw DataMediatorError(
                .badLimit,
                "'limit' must be a whole number from 1 to \(maximumLimit) (larger numbers are clamped); got '\(raw)'."
            )
        }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        guard !negative, !significant.isEmpty else {
            throw DataMediatorError(.badLimit, "'limit' must be at least 1; got '\(raw)'.")
        }
        // Any number longer than 18 digits is above every maximum, and would not fit an Int.
        if significant.count > 18 { return maximumLimit }
        return min(Int(String(decoding: significant, as: UTF8.self)) ?? maximumLimit, maximumLimit)
    }
}
