import Foundation
import Testing
import Yams

/// `openapi.yaml` names every status a route answers (API.md: it "must describe exactly
/// this"), those that only some stores or lists give included, which the schemathesis run
/// over the demo never meets (probe 28): a unique index of the table refusing a `PUT` or
/// `PATCH` (409, ConstraintRefusalTests), a constraint or trigger refusing a `DELETE`
/// (422, ConstraintRefusalTests), a flood of a composite's pages (429, API.md "Cost").
@Suite struct OpenAPIStatusTests {
    /// The statuses the document lists for `method` of `path`.
    static func statuses(_ method: String, _ path: String) throws -> Set<String> {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("openapi.yaml")
        let document = try #require(try Yams.load(yaml: String(contentsOf: file, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let operation = try #require((paths[path] as? [String: Any])?[method] as? [String: Any], "\(method) \(path)")
        let responses = try #require(operation["responses"] as? [String: Any])
        return Set(responses.keys)
    }

    @Test(arguments: [
        ("put", "/lists/{list}/items/{id}", "409"),
        ("patch", "/lists/{list}/items/{id}", "409"),
        ("post", "/lists/{list}/items", "409"),
        ("delete", "/lists/{list}/items/{id}", "422"),
        ("get", "/lists/{list}/items", "429"),
        ("get", "/lists/{list}/items/{id}", "429"),
        ("get", "/lists/{list}/sections", "429"),
        ("get", "/lists/{list}/changes", "429"),
    ])
    func everyStatusARouteAnswersIsListed(method: String, path: String, status: String) throws {
        #expect(try Self.statuses(method, path).contains(status), "\(method) \(path) does not list \(status)")
    }
}
