/// Which list a session shows, through which view and parameters, and how it pages.
public struct ListSessionConfiguration: Sendable {
    /// The list's name.
    public var list: String
    /// The view; nil for the list's default view.
    public var view: String?
    /// The view's parameters by name (`["game": "7"]`).
    public var parameters: [String: String]
    /// Items per page; nil for the list's default.
    public var limit: Int?
    /// Headers sent with every request, e.g. `Authorization` for a scoped list.
    public var headers: [String: String]
    /// Headers asked for before every request and every stream opened, over ``headers``:
    /// a fresh `Authorization` for a scoped list whose tokens expire (its event stream ends
    /// when the token does, and a `401` stream is then opened again with fresh headers).
    /// Nil for none.
    public var freshHeaders: (@Sendable () async throws -> [String: String])?
    /// How long to wait before reconnecting a dropped event stream until the stream sets
    /// its own reconnection time (`retry:`, which the service sends as 2 s).
    public var reconnectDelay: Duration

    /// Creates a configuration.
    public init(
        list: String,
        view: String? = nil,
        parameters: [String: String] = [:],
        limit: Int? = nil,
        headers: [String: String] = [:],
        freshHeaders: (@Sendable () async throws -> [String: String])? = nil,
        reconnectDelay: Duration = .seconds(2)
    ) {
        self.freshHeaders = freshHeaders
        self.list = list
        self.view = view
        self.parameters = parameters
        self.limit = limit
        self.headers = headers
        self.reconnectDelay = reconnectDelay
    }

    /// The query names the routes take themselves: no view's parameter may have one (the
    /// server would take it as its own, or refuse it given twice).
    public static let routeNames: Set<String> = ["view", "limit", "cursor", "around", "since"]

    /// The query of a request: the view and parameters, then `extra`.
    ///
    /// - Throws: ``ListClientError/Code/badConfiguration`` for a parameter named as one of
    ///   ``routeNames``, before anything is sent.
    func query(_ extra: [(String, String)] = [], paging: Bool = true) throws -> [(String, String)] {
        if let name = parameters.keys.filter(Self.routeNames.contains).min() {
            let names = Self.routeNames.sorted().joined(separator: ", ")
            throw ListClientError(
                .badConfiguration,
                message: "the parameter '\(name)' is one of the routes' own names (\(names)), no view's parameter"
            )
        }
        var query: [(String, String)] = []
        if let view { query.append(("view", view)) }
        query += parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if paging, let limit { query.append(("limit", String(limit))) }
        return query + extra
    }

    /// The path of the list's route `suffix` (`/items`, `/changes`).
    func path(_ suffix: String) -> String {
        "/lists/\(URLSessionTransport.encodeSegment(list))\(suffix)"
    }
}
