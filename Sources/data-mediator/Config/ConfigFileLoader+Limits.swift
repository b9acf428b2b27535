import DataMediator
import Yams

/// A list's or a composite's `limit:`, its page sizes.
extension ConfigFileLoader {
    /// `limit: {default: n, max: m}`: each at least 1 and at most ``PageLimits/upperBound``,
    /// the default at most the maximum. Each value given is checked whatever the other's is
    /// (a `default: 0` hid a `max` over the bound until it was mended); nil, with the
    /// errors reported, when one is refused.
    mutating func parseLimits(_ node: Node?, list: String) -> PageLimits? {
        guard let node else { return PageLimits() }
        if node.scalar != nil {
            // A composite child's `limit: 5` is a number: the slip is likely here.
            fail(node, "list '\(list)': 'limit' is the page sizes, a mapping: limit: {default: 20, max: 100}")
            return nil
        }
        guard let limit = mapping(node, allowed: ["default", "max"], what: "'limit'") else { return nil }
        let bound = PageLimits.upperBound
        let givenDefault = limit["default"].map { positiveInt($0, what: "'limit.default'", bound: bound) }
        let givenMaximum = limit["max"].map { positiveInt($0, what: "'limit.max'", bound: bound) }
        var refused = givenDefault == .some(nil) || givenMaximum == .some(nil)
        for (name, given) in [("limit.default", givenDefault), ("limit.max", givenMaximum)] {
            guard let value = given ?? nil, value > bound else { continue }
            fail(
                limit[name == "limit.max" ? "max" : "default"] ?? node,
                "list '\(list)': '\(name)' (\(value)) is above \(bound), the most items a page may hold"
            )
            refused = true
        }
        // A value refused above is not compared with the other (nor one put in its place).
        if refused { return nil }
        let defaultLimit = givenDefault.flatMap { $0 } ?? 20
        let maximum = givenMaximum.flatMap { $0 } ?? max(100, defaultLimit)
        if defaultLimit > maximum {
            // Only a maximum was written: the default is the service's, which it is below.
            let problem =
                givenDefault == nil
                ? "'limit.max' (\(maximum)) is below the page size when none is asked, 'limit.default' "
                    + "(\(defaultLimit) when not written); give a default of at most \(maximum) too"
                : "'limit.default' (\(defaultLimit)) is above 'limit.max' (\(maximum)); lower it or raise the maximum"
            fail(node, "list '\(list)': \(problem)")
            return nil
        }
        return PageLimits(defaultLimit: defaultLimit, maximumLimit: maximum)
    }
}
