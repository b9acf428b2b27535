import DataMediator

/// A provider that answers as another does (``inner``), for tests that change one of its
/// answers (fail, count or hold it) and keep the rest: every requirement is forwarded
/// unless the conforming type answers it itself.
public protocol ForwardingProvider: DataProvider, SectionInfoProvider {
    /// The provider whose answers are forwarded.
    var inner: any DataProvider & SectionInfoProvider { get }
}

extension ForwardingProvider {
    /// `inner`'s window from `start`.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
    }

    /// `inner`'s window before `start`.
    public func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        try await inner.window(of: view, before: start, inclusive: inclusive, limit: limit)
    }

    /// `inner`'s window on both sides of `start`.
    public func window(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws -> AnchoredWindow {
        try await inner.window(of: view, at: start, inclusive: inclusive, before: before, from: from)
    }

    /// `inner`'s window around the item `id`.
    public func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        try await inner.window(of: view, around: id, before: before, from: from)
    }

    /// Where `inner` places the item `id`.
    public func locate(id: String, in view: View) async throws -> Location? {
        try await inner.locate(id: id, in: view)
    }

    /// `inner`'s version.
    public func currentVersion() async throws -> Int64 { try await inner.currentVersion() }

    /// `inner`'s catching up with `version`.
    public func catchUp(to version: Int64) async throws -> CatchUp { try await inner.catchUp(to: version) }

    /// `inner`'s order of two positions.
    public func compare(_ lhs: Position, _ rhs: Position, in view: View) -> Int {
        inner.compare(lhs, rhs, in: view)
    }

    /// `inner`'s section counts.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        try await inner.sectionCounts(of: view)
    }
}
