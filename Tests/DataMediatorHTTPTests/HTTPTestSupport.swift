import DataMediator
import DataMediatorHTTP
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The sample list served in process, and helpers to read answers.
enum HTTPTestSupport {
    static func registry(provider: (any DataProvider & SectionInfoProvider)? = nil) -> ListRegistry {
        let provider =
            provider ?? ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views, version: 7)
        let signer = CursorSigner(secret: SampleList.secret)
        let other = ListDefinition(name: "other", title: "Other", idField: "id", views: SampleList.views)
        return ListRegistry([
            ListAdapter(definition: SampleList.definition, provider: provider, signer: signer),
            ListAdapter(definition: other, provider: provider, signer: signer),
        ])
    }

    /// Runs `test` against the application's router.
    static func withClient(
        provider: (any DataProvider & SectionInfoProvider)? = nil,
        ready: Bool = true,
        _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let problem = ready ? nil : "The sample cannot be read."
        let router = buildRouter(registry: registry(provider: provider), readiness: { problem })
        try await Application(router: router).test(.router) { client in try await test(client) }
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    // "Link" is a valid field name, so the fallback is never used.
    static let link = HTTPField.Name("Link") ?? .eTag
}

extension Data {
    init(buffer: ByteBuffer) {
        self.init(buffer.readableBytesView)
    }
}

/// A SQLite store in a folder of its own, removed when the last reference goes.
final class TemporaryStore: Sendable {
    let directory: URL
    let store: SQLiteStore

    init(_ prefix: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent("notes.sqlite").path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
