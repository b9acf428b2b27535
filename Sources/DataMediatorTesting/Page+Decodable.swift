import DataMediator
import Foundation

/// Pages, sections and cells read back from the JSON a server sent, so tests of the HTTP
/// API can check them with the same rules as pages built in process.
extension Page {
    /// Decodes a page from its JSON.
    ///
    /// - Throws: when the JSON lacks a field of the contract or has one of the wrong type.
    public static func decode(_ bytes: [UInt8]) throws -> Page {
        try JSONDecoder().decode(PageJSON.self, from: Data(bytes)).page
    }
}

private struct PageJSON: Decodable {
    struct SectionJSON: Decodable {
        let id: String
        let kind: String
        let title: String?
        let continues: Bool
        let items: [CellJSON]
    }

    struct CellJSON: Decodable {
        let id: String
        let type: String
        let rev: String
        let data: JSONValue
    }

    let list: String
    let view: String
    let limit: Int
    let version: String
    let sections: [SectionJSON]
    let next: String?
    let prev: String?

    var page: Page {
        get throws {
            guard let version = Int64(version) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "version is not a number"))
            }
            let sections = try sections.map { section in
                guard let kind = PageSection.Kind(rawValue: section.kind) else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: [], debugDescription: "unknown kind \(section.kind)")
                    )
                }
                return PageSection(
                    id: section.id,
                    kind: kind,
                    title: section.title,
                    continues: section.continues,
                    items: section.items.map { Cell(id: $0.id, type: $0.type, rev: $0.rev, data: $0.data) }
                )
            }
            return Page(
                list: list,
                view: view,
                limit: limit,
                version: version,
                sections: sections,
                next: next,
                prev: prev
            )
        }
    }
}
