import HTTPTypes
import Testing

@testable import DataMediatorHTTP

/// The metric handles of the request middleware: one set per key, and a bounded number of keys.
@Suite struct RequestMetricsTests {
    @Test func handlesAreMadeOncePerRouteMethodAndStatus() {
        let metrics = RequestMetrics()
        let first = metrics.handles(route: "/lists/{list}", method: .get, status: .ok)
        #expect(first.requests === metrics.handles(route: "/lists/{list}", method: .get, status: .ok).requests)
        #expect(first.requests !== metrics.handles(route: "/lists/{list}", method: .get, status: .notFound).requests)
        #expect(first.requests !== metrics.handles(route: "/lists", method: .get, status: .ok).requests)
        #expect(first.requests !== metrics.handles(route: "/lists/{list}", method: .head, status: .ok).requests)
        #expect(metrics.active(method: .get) === metrics.active(method: .get))
    }

    /// A client can send any method the HTTP parser knows (WebDAV's among them); those
    /// outside HTTP's own share one `_OTHER` series, so they cannot grow the number of series.
    @Test func methodsOutsideHTTPsOwnShareOneSeries() throws {
        let metrics = RequestMetrics()
        let propfind = try #require(HTTPRequest.Method("PROPFIND"))
        let mkcol = try #require(HTTPRequest.Method("MKCOL"))
        #expect(RequestMetrics.dimension(propfind) == "_OTHER")
        #expect(RequestMetrics.dimension(.patch) == "PATCH")
        #expect(
            metrics.handles(route: "NotFound", method: propfind, status: .notFound).requests
                === metrics.handles(route: "NotFound", method: mkcol, status: .notFound).requests
        )
        #expect(metrics.active(method: propfind) === metrics.active(method: mkcol))
    }

    /// An item's routes are labelled as API.md and the JSON index name them, not as the
    /// router matches them (`**`, the rest of the path: an id may hold a `/`).
    @Test func anItemsRouteIsLabelledWithItsID() {
        #expect(RequestMetrics.label("/lists/{list}/items/**") == "/lists/{list}/items/{id}")
        #expect(RequestMetrics.label("/lists/{list}/items") == "/lists/{list}/items")
        let metrics = RequestMetrics()
        #expect(
            metrics.handles(route: "/lists/{list}/items/**", method: .get, status: .ok).requests
                === metrics.handles(route: "/lists/{list}/items/{id}", method: .get, status: .ok).requests
        )
    }
}
