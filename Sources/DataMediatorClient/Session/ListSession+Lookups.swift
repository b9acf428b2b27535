import Foundation

extension ListSession {
    /// The view's sections over the whole view, with their counts and the total
    /// (`GET /lists/{list}/sections`, with the session's view, parameters and headers). It
    /// changes nothing the session holds, and does not wait for its other operations.
    ///
    /// - Throws: ``ListClientError`` when the server cannot be reached or refuses (`429`
    ///   with ``ListClientError/retryAfter`` when the client asked for counts too often).
    public func sectionInfo() async throws -> ListSectionInfo {
        let answer = try await transport.get(
            path: configuration.path("/sections"),
            query: try configuration.query(paging: false),
            headers: try await requestHeaders()
        )
        return try Self.decode(ListSectionInfo.self, answer, what: "sections")
    }

    /// ``sectionInfo()``, read again while it is older than `floor`, as
    /// ``readPage(_:notOlderThan:)`` reads a page: a section a change created is not in
    /// the sections of a replica that lags, nor its title. Answers the last read.
    func sectionInfo(notOlderThan floor: Int64) async throws -> ListSectionInfo {
        try await readAgain(
            { try await self.sectionInfo() },
            while: { $0.version.map { $0 < floor } ?? false }
        )
    }

    /// Where the item `id` stands in the whole view (`GET /lists/{list}/items/{id}`, with the
    /// session's view, parameters and headers): its path among all sections, its place and
    /// a cursor whose page starts with it. It changes nothing the session holds, and does
    /// not wait for its other operations. A `404` is read again a while when the view's
    /// sections say the replica that answered is older than what the session read.
    ///
    /// - Throws: ``ListClientError`` with status `404` when the view (or the caller's
    ///   slice) has no such item; others as ``sectionInfo()``.
    public func locate(_ id: String) async throws -> ListLocation {
        try await readUnlessLagging(id) { try await lookUp(id) }
    }

    /// ``locate(_:)`` without its reading again: the titles' lookups read the sections
    /// again themselves.
    func lookUp(_ id: String) async throws -> ListLocation {
        let answer = try await transport.get(
            path: configuration.path("/items/\(URLSessionTransport.encodeSegment(id))"),
            query: try configuration.query(paging: false),
            headers: try await requestHeaders()
        )
        return try Self.decode(ListLocation.self, answer, what: "item")
    }
}
