import ArgumentParser

extension ServeConfiguration {
    /// The whole number the variable `name` holds; nil when it is unset or empty.
    ///
    /// - Throws: `ValidationError` when it holds anything else, naming it.
    static func number(_ name: String, in environment: [String: String]) throws -> Int? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let value = Int(text) else {
            let digits = text.drop { $0 == "-" || $0 == "+" }
            if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
                throw ValidationError("\(name) is '\(text)', larger than any setting it takes.")
            }
            throw ValidationError("\(name) must be a whole number; it is '\(text)'.")
        }
        return value
    }

    /// The largest request body (`DATA_MEDIATOR_MAX_BODY_BYTES`, default 1 MiB): `serve`'s
    /// writes, and `import`'s records (an item imported larger could not be written back,
    /// and a page of such items costs what the limit is there to bound).
    ///
    /// - Throws: `ValidationError` when it is no whole number of at least 1.
    static func maximumBodyBytes(in environment: [String: String]) throws -> Int {
        let value = try number("DATA_MEDIATOR_MAX_BODY_BYTES", in: environment) ?? 1 << 20
        guard value >= 1 else {
            throw ValidationError("DATA_MEDIATOR_MAX_BODY_BYTES must be at least 1; it is \(value).")
        }
        return value
    }
}
