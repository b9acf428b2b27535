import DataMediator
import DataMediatorHTTP
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `view` absent is the list's default view (API.md, "A page"), wherever the default stands
/// among the views: here second, after `flat`.
@Suite struct DefaultViewTests {
    @Test func everyRouteWithoutAViewServesTheDefaultOneNotTheFirst() async throws {
        let views = SampleList.views
        let reordered = [views[2], views[0], views[1], views[3]]
        #expect(reordered[0].name == "flat" && reordered[1].isDefault)
        let definition = ListDefinition(name: "reordered", title: "Reordered", idField: "id", views: reordered)
        let provider = ArrayDataProvider(items: SampleList.items(), idField: "id", views: reordered, version: 3)
        let registry = ListRegistry([
            ListAdapter(definition: definition, provider: provider, signer: CursorSigner(secret: SampleList.secret))
        ])
        try await Application(router: buildRouter(registry: registry)).test(.router) { client in
            let page = try HTTPTestSupport.json(try await client.execute(uri: "/lists/reordered/items", method: .get))
            #expect(page["view"] as? String == "by_group")
            for route in ["/items", "/items?limit=4", "/sections", "/items/item-30", "/changes?since=0"] {
                let absent = try await client.execute(uri: "/lists/reordered\(route)", method: .get)
                let separator = route.contains("?") ? "&" : "?"
                let named = try await client.execute(
                    uri: "/lists/reordered\(route)\(separator)view=by_group",
                    method: .get
                )
                #expect(absent.status == .ok, "\(route)")
                #expect(
                    Array(absent.body.readableBytesView) == Array(named.body.readableBytesView),
                    "\(route) without a view is not by_group's"
                )
            }
            let description = try HTTPTestSupport.json(try await client.execute(uri: "/lists/reordered", method: .get))
            let flags = (description["views"] as? [[String: Any]] ?? []).map { $0["default"] as? Bool ?? false }
            #expect(flags == [false, true, false, false])
        }
    }
}
