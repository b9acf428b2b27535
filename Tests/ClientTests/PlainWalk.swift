import DataMediatorClient
import DataMediatorTesting
import Foundation
import Testing

/// The oracle of the tests against the real binary: a whole view read page by page over
/// plain HTTP, `next` after `next`, with none of the kit's paging, merging or change code.
/// A section a page boundary cut is joined by its id; loading sections are left out.
enum PlainWalk {
    private struct Page: Decodable {
        struct Section: Decodable {
            let id: String
            let kind: String
            let title: String?
            let items: [Item]
        }

        struct Item: Decodable {
            let id: String
            let type: String
            let rev: String
            let data: ItemData
        }

        let version: String
        let sections: [Section]
        let next: String?
    }

    /// The view `view` of `list` (its default when nil), `limit` items a page, as a
    /// snapshot at the last page's version.
    static func snapshot(
        of server: ServerProcess,
        list: String,
        view: String? = nil,
        limit: Int = 100
    ) async throws -> ListSnapshot {
        var sections: [ListSection] = []
        var cursor: String?
        var version: Int64 = 0
        var viewName = view ?? ""
        for pages in 0... {
            try #require(pages < 10_000, "the walk of \(list) does not end")
            var query = ["limit=\(limit)"]
            // List and view names and cursors need no percent-encoding.
            if let view { query.append("view=\(view)") }
            if let cursor { query.append("cursor=\(cursor)") }
            let answer = try await server.get("/lists/\(list)/items?" + query.joined(separator: "&"))
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let page = try JSONDecoder().decode(Page.self, from: Data(answer.body))
            if viewName.isEmpty {
                let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                viewName = object?["view"] as? String ?? ""
            }
            version = try #require(Int64(page.version))
            for section in page.sections where section.kind == "items" {
                let items = section.items.map { ListItem(id: $0.id, type: $0.type, rev: $0.rev, data: $0.data) }
                if let last = sections.last, last.id == section.id {
                    sections[sections.count - 1] = ListSection(
                        id: last.id,
                        title: last.title,
                        items: last.items + items
                    )
                } else {
                    sections.append(ListSection(id: section.id, title: section.title, items: items))
                }
            }
            guard let next = page.next else { break }
            cursor = next
        }
        return ListSnapshot(
            list: list,
            view: viewName,
            version: version,
            sections: sections,
            nextCursor: nil,
            previousCursor: nil
        )
    }
}
