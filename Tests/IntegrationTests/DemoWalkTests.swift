import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import Testing

@testable import data_mediator

/// The real executable serving the built-in demo, walked over real sockets.
@Suite(.serialized) struct DemoWalkTests {
    /// A view as `GET /lists/{list}` describes it.
    struct DescribedView {
        let list: String
        let name: String
        let sort: [(field: String, descending: Bool)]
        let maximum: Int
        /// The view's required parameters, each with a value (`&game=7`).
        let parameters: String
    }

    /// The value the walk gives each required parameter of the demo's views.
    static let parameterValues = ["game": "7"]

    static func views(of server: ServerProcess) async throws -> [DescribedView] {
        var views: [DescribedView] = []
        let lists = try #require(try await server.json("/lists")["lists"] as? [[String: Any]])
        for list in lists {
            let name = try #require(list["name"] as? String)
            let description = try await server.json("/lists/\(name)")
            // A scoped list shows each caller their own items (ScopedListTests walk them).
            guard description["scope"] is NSNull else { continue }
            let maximum = try #require((description["limit"] as? [String: Int])?["max"])
            for view in try #require(description["views"] as? [[String: Any]]) {
                let sort = try #require(view["sort"] as? [[String: String]]).map {
                    ($0["field"] ?? "", $0["order"] == "desc")
                }
                let required = (view["parameters"] as? [[String: Any]] ?? []).filter { $0["required"] as? Bool == true }
                let parameters = try required.map { parameter in
                    let name = try #require(parameter["name"] as? String)
                    return "&\(name)=\(try #require(parameterValues[name]))"
                }
                views.append(
                    DescribedView(
                        list: name,
                        name: try #require(view["name"] as? String),
                        sort: sort,
                        maximum: maximum,
                        parameters: parameters.joined()
                    )
                )
            }
        }
        return views
    }

    /// Whether `lhs` comes strictly before `rhs` in the described order: sort fields from
    /// `data`, the last key (the id) from the item's id, numerically when both are integers.
    /// (Each cell's data is parsed once by the caller: a cell keeps its data as JSON text.)
    static func precedes(
        _ lhs: (id: String, data: [String: JSONValue]),
        _ rhs: (id: String, data: [String: JSONValue]),
        sort: [(field: String, descending: Bool)]
    ) -> Bool {
        for (index, key) in sort.enumerated() {
            let (left, right): (JSONValue, JSONValue)
            if index == sort.count - 1 {
                if let l = Int64(lhs.id), let r = Int64(rhs.id) {
                    (left, right) = (.integer(l), .integer(r))
                } else {
                    (left, right) = (.string(lhs.id), .string(rhs.id))
                }
            } else {
                (left, right) = (lhs.data[key.field] ?? .null, rhs.data[key.field] ?? .null)
            }
            let order = JSONValue.compare(left, right)
            if order != 0 { return key.descending ? order > 0 : order < 0 }
        }
        return false
    }

    @Test func everyListAndViewOfTheDemoWalksCorrectly() async throws {
        let server = try await ServerProcess()
        defer { server.removeData() }
        let views = try await Self.views(of: server)
        #expect(
            Set(views.map { "\($0.list)/\($0.name)" }) == [
                "transactions/chronological", "transactions/by_player", "transactions/feed", "transactions/game",
                "highscore/top",
                "expansions/by_category",
                "expansions/chronological", "home/all",
            ]
        )
        var random = SplitMix64(seed: 23)
        for view in views {
            var check = WalkCheck()
            var cursor: String?
            repeat {
                let path =
                    "/lists/\(view.list)/items?view=\(view.name)\(view.parameters)&limit=\(view.maximum)"
                    + (cursor.map { "&cursor=\($0)" } ?? "")
                let answer = try await server.get(path)
                #expect(answer.status == 200)
                let page = try Page.decode(answer.body)
                #expect(page.list == view.list && page.view == view.name && page.limit == view.maximum)
                check.add(page)
                #expect((answer.headers["link"]?.contains(#"rel="next""#) ?? false) == (page.next != nil))
                cursor = page.next
            } while cursor != nil
            let label = "\(view.list)/\(view.name)"
            // A composite has no sort of its own (CompositeTests check its order).
            let keyed = view.sort.isEmpty ? [] : check.items.map { (id: $0.id, data: $0.data.objectValue ?? [:]) }
            let outOfOrder = zip(keyed, keyed.dropFirst()).first { !Self.precedes($0, $1, sort: view.sort) }
            #expect(outOfOrder == nil, "\(label): \(outOfOrder.map { "\($0.0.id) before \($0.1.id)" } ?? "")")

            let sections = try await server.json("/lists/\(view.list)/sections?view=\(view.name)\(view.parameters)")
            let infos = try #require(sections["sections"] as? [[String: Any]]).map {
                SectionInfo.Section(
                    id: $0["id"] as? String ?? "?",
                    title: $0["title"] as? String,
                    count: $0["count"] as? Int ?? -1
                )
            }
            check.expectSections(infos)
            #expect(sections["total"] as? Int == check.items.count)
            #expect(check.violations == [], "\(label)")
            try await Self.checkBothWays(view, forward: check, on: server, random: &random)
            if view.list == "transactions" {
                // A slice holds exactly the demo's transactions of its game.
                let expected =
                    view.parameters.isEmpty
                    ? 100_000 : DemoRows.transactions(count: 100_000).filter { $0.game == 7 }.count
                #expect(check.items.count == expected, "\(label)")
            }

            // Index paths of a sample of items (all of them for small views) equal the walk's.
            var starts: [Int] = []
            var total = 0
            for section in check.sections {
                starts.append(total)
                total += section.count
            }
            let step = max(1, check.items.count / 150)
            for position in Set(Array(stride(from: 0, to: check.items.count, by: step)) + [check.items.count - 1])
                .sorted()
            {
                let item = check.items[position]
                let encoded = PathSegment.encode(item.id)
                let location = try await server.json(
                    "/lists/\(view.list)/items/\(encoded)?view=\(view.name)\(view.parameters)"
                )
                let sectionIndex = try #require(starts.lastIndex { $0 <= position })
                let path = try #require(location["index_path"] as? [String: Int])
                #expect(
                    path == ["section": sectionIndex, "item": position - starts[sectionIndex]],
                    "\(label) item \(item.id)"
                )
                #expect(location["position"] as? Int == position)
            }
        }
        #expect(await server.stop() == 0)
    }

    @Test func theDemoTransactionsTakeWritesWithAToken() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "50"],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "demo-token"]
        )
        defer { server.removeData() }
        let description = try await server.json("/lists/transactions")
        #expect(description["writable"] as? Bool == true)
        #expect(try await server.json("/lists/highscore")["writable"] as? Bool == false)
        let start = try #require(try await server.json("/lists/transactions/items?limit=1")["version"] as? String)

        let json = ["Content-Type": "application/json"]
        let body = #"{"data": {"player": "zoe", "points": 5, "reason": "demo", "created_at": "2030-01-01T00:00:00Z"}}"#
        let refused = try await server.send("POST", "/lists/transactions/items", headers: json, body: body)
        #expect(refused.status == 401 && refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        let authorized = json.merging(["Authorization": "Bearer demo-token"]) { $1 }
        let missing = #"{"data": {"player": "zoe"}}"#
        let invalid = try await server.send("POST", "/lists/transactions/items", headers: authorized, body: missing)
        #expect(invalid.status == 422)

        let created = try await server.send("POST", "/lists/transactions/items", headers: authorized, body: body)
        #expect(created.status == 201)
        let item = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
        let id = try #require(item["id"] as? String)
        #expect(created.headers["location"] == "/lists/transactions/items/\(id)")
        // The newest transaction opens the first page, in its own day's section.
        let first = try Page.decode(try await server.get("/lists/transactions/items?limit=1").body)
        #expect(first.sections.first?.id == "2030-01-01" && first.sections.first?.items.first?.id == id)

        // home shows the 3 newest transactions (a capped child): it says reload; and it is read-only.
        let home = try await server.json("/lists/home/changes?since=\(start)")
        #expect(try #require(home["changes"] as? [[String: Any]]).map { $0["op"] as? String } == ["reload"])
        let composite = try await server.send("POST", "/lists/home/items", headers: authorized, body: body)
        #expect(composite.status == 405)

        let deleted = try await server.send("DELETE", "/lists/transactions/items/\(id)", headers: authorized)
        #expect(deleted.status == 204)
        let changes = try await server.json("/lists/transactions/changes?since=\(start)")
        let ops = try #require(changes["changes"] as? [[String: Any]]).map { $0["op"] as? String }
        #expect(ops == ["insert", "delete"])
        // Standard error is no terminal: every log line is a JSON object, requests with their id.
        let records = server.log.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(!records.isEmpty && records.allSatisfy { $0 != nil })
        #expect(
            records.contains { $0?["message"] as? String == "request" && ($0?["request_id"] as? String)?.count == 32 }
        )
        // The aggregate over the transactions can only say that it moved.
        let scores = try await server.json("/lists/highscore/changes?since=\(start)")
        #expect(try #require(scores["changes"] as? [[String: Any]]).map { $0["op"] as? String } == ["reload"])
        #expect(await server.stop() == 0)
    }

    /// Creates a transaction with the token `t`; returns the status.
    static func createTransaction(on server: ServerProcess) async throws -> Int {
        try await server.send(
            "POST",
            "/lists/transactions/items",
            headers: ["Content-Type": "application/json", "Authorization": "Bearer t"],
            body: #"{"data": {"player": "ada", "points": 1, "reason": "x", "created_at": "2030-01-01T00:00:00Z"}}"#
        ).status
    }

    @Test func metricsCountRequestsByRouteAndStatusAndShowStreamsAndTheStoreVersion() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "50"],
            // A stream learns that its client left when it next writes: a heartbeat a second.
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "t", "DATA_MEDIATOR_HEARTBEAT_SECONDS": "1"]
        )
        defer { server.removeData() }
        // The streams' gauge is there from the start, before any stream opened.
        let first = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        #expect(first.contains("data_mediator_sse_streams 0.0\n"), "\(first)")
        for _ in 0..<3 { _ = try await server.get("/lists/transactions/items?limit=2") }
        _ = try await server.get("/lists/nope")
        #expect(try await Self.createTransaction(on: server) == 201)
        // An event stream held open by curl.
        let curl = try ChildProcess("/usr/bin/curl", ["-sN", server.base + "/lists/transactions/events"])
        defer { if curl.isRunning { kill(curl.processIdentifier, SIGKILL) } }
        var text = ""
        // The store's version is looked at once for the scrapes of a second (SharedLook).
        for _ in 0..<100 {
            text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            if text.contains("data_mediator_sse_streams 1.0\n"), text.contains("data_mediator_store_version 1.0\n") {
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let route = #"http_route="/lists/{list}/items",http_request_method="GET",http_response_status_code="200""#
        #expect(text.contains("hb_requests{\(route)} 3"), "\(text)")
        #expect(
            text.contains(
                #"hb_requests{http_route="/lists/{list}",http_request_method="GET",http_response_status_code="404"} 1"#
            )
        )
        #expect(text.contains(#"http_response_status_code="201"} 1"#))
        #expect(text.contains("http_server_request_duration_bucket{\(route),le="))
        #expect(text.contains(#"data_mediator_page_query_seconds_count{list="transactions"} 3"#))
        #expect(text.contains("data_mediator_sse_streams 1.0\n"))
        #expect(text.contains("data_mediator_store_version 1.0\n"))
        // The outside writes' counters are there at 0 before any table changed outside.
        #expect(text.contains(#"data_mediator_outside_writes{table="transactions"} 0"#), "\(text)")
        #expect(text.contains("data_mediator_outside_write_look_errors 0\n"), "\(text)")
        // A stream is an active request until it ends; so is the `/metrics` request itself.
        let active = #"http_server_active_requests{http_request_method="GET"} "#
        #expect(text.contains(active + "2.0\n"), "\(text)")
        kill(curl.processIdentifier, SIGKILL)
        while curl.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        for _ in 0..<100 {
            text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            if text.contains("data_mediator_sse_streams 0.0\n"), text.contains(active + "1.0\n") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(text.contains("data_mediator_sse_streams 0.0\n"))
        #expect(text.contains(active + "1.0\n"), "\(text)")
        // The stream was counted when it ended.
        #expect(
            text.contains(
                #"hb_requests{http_route="/lists/{list}/events",http_request_method="GET",http_response_status_code="200"} 1"#
            ),
            "\(text)"
        )
        #expect(await server.stop() == 0)
    }

    @Test func theCurlCommandWalksTheSmallLists() async throws {
        let server = try await ServerProcess()
        defer { server.removeData() }
        for (list, view) in [("expansions", "by_category"), ("expansions", "chronological"), ("highscore", "top")] {
            var check = WalkCheck()
            var cursor: String?
            repeat {
                let url =
                    "\(server.base)/lists/\(list)/items?view=\(view)&limit=7" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try Page.decode(try Self.curl(url))
                check.add(page)
                cursor = page.next
            } while cursor != nil
            #expect(check.violations == [], "\(list)/\(view)")
            #expect(check.items.count > 7)
        }
        #expect(await server.stop() == 0)
    }

    static func curl(_ url: String) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("dm-curl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = try ChildProcess(
            "curl",
            ["--silent", "--show-error", "--fail", url],
            standardOutput: output.path
        )
        #expect(process.waitUntilExit() == 0, "curl \(url)")
        return Array((try? Data(contentsOf: output)) ?? Data())
    }
}
