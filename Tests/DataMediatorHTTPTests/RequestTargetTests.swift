import Testing

@testable import DataMediatorHTTP

/// A request target's path as the routes see it: dot segments resolved (RFC 3986 5.2.4),
/// as a browser or curl resolves them before sending; encoded dots and the query left alone.
@Suite struct RequestTargetTests {
    @Test(arguments: [
        ("/lists/./transactions/items", "/lists/transactions/items"),
        ("/lists/x/../transactions/items?limit=1", "/lists/transactions/items?limit=1"),
        ("/a/b/..", "/a/"),
        ("/a/./", "/a/"),
        ("/a/.", "/a/"),
        ("/..", "/"),
        ("/../../health", "/health"),
        ("/lists/t/items/.hidden", "/lists/t/items/.hidden"),
        ("/lists/t/items/..x", "/lists/t/items/..x"),
        ("/lists/t/items/%2E%2E", "/lists/t/items/%2E%2E"),
        ("/health?next=/a/../b", "/health?next=/a/../b"),
    ])
    func dotSegmentsAreResolved(target: String, routed: String) {
        #expect(RequestHeadCheck.removingDotSegments(target) == routed)
    }
}
