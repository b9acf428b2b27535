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
        // The conditions of the routes whose answers carry no tag (UntaggedPreconditionMiddleware):
        // `If-None-Match: *` is `304`, an `If-Match` of tags `412`, a malformed one `400`.
        ("get", "/health", "304"), ("get", "/health", "412"), ("get", "/health", "400"),
        ("get", "/ready", "304"), ("get", "/ready", "412"), ("get", "/ready", "400"),
        ("get", "/metrics", "304"), ("get", "/metrics", "412"), ("get", "/metrics", "400"),
        ("get", "/problems/{slug}", "304"), ("get", "/problems/{slug}", "412"), ("get", "/problems/{slug}", "400"),
        ("get", "/lists/{list}/events", "412"), ("get", "/openapi.yaml", "400"), ("get", "/", "400"),
        ("get", "/explorer/{file}", "400"),
    ])
    func everyStatusARouteAnswersIsListed(method: String, path: String, status: String) throws {
        #expect(try Self.statuses(method, path).contains(status), "\(method) \(path) does not list \(status)")
    }

    /// The explorer's files the document names are the ones the binary serves (the files
    /// of `Resources/explorer/` but the page): a module added to the page is named too.
    @Test func theExplorerFilesListedAreTheOnesServed() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try #require(
            try Yams.load(yaml: String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8))
                as? [String: Any]
        )
        let operation =
            (((document["paths"] as? [String: Any])?["/explorer/{file}"] as? [String: Any])?["get"])
            as? [String: Any]
        let parameters = try #require(operation?["parameters"] as? [[String: Any]])
        let file = try #require(parameters.first { $0["name"] as? String == "file" })
        let listed = try #require((file["schema"] as? [String: Any])?["enum"] as? [String])
        let folder = root.appendingPathComponent("Sources/DataMediatorHTTP/Resources/explorer")
        let served = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "index.html" }
        #expect(Set(listed) == Set(served))
        #expect(listed.count == served.count)
    }
}
