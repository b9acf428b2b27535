import DataMediator
import Foundation
import Hummingbird

/// A write's `If-Match` and `If-None-Match` (RFC 9110 §13.1.1, §13.1.2) as the condition
/// the store checks in the write's transaction.
///
/// An item has two current entity tags: its write answer's (the cell, `ETag` of `PUT`,
/// `PATCH`, `POST`), which changes when the item does, and that of `GET
/// /lists/{list}/items/{id}` in the default view, which also names the item's place and the
/// store's version (``LookupTag``). The store compares the first; a tag of the second is
/// taken as the item's tag it begins with, so it holds while the item is as it showed it,
/// whatever other writes did meanwhile.
enum WriteConditions {
    /// The condition of `request`'s headers, nil when it has neither.
    ///
    /// - Throws: `bad-request` for a header that is not `*` or a list of entity tags.
    static func condition(of request: Request) throws(Problem) -> WriteCondition? {
        let lookups = { (tags: Set<String>) in tags.union(tags.compactMap(LookupTag.itemTag(in:))) }
        let ifMatch = try tags(request.headers[values: .ifMatch], weak: false, name: "If-Match").map(lookups)
        let ifNoneMatch = try tags(request.headers[values: .ifNoneMatch], weak: true, name: "If-None-Match")
            .map(lookups)
        guard ifMatch != nil || ifNoneMatch != nil else { return nil }
        return WriteCondition(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch)
    }

    /// The condition of a `POST`'s `If-Match` and `If-None-Match`, whose target is the
    /// collection (the adapter checks it against the list's first page); nil when it has
    /// neither.
    ///
    /// - Throws: `bad-request` for a header that is not `*` or a list of entity tags.
    static func collectionCondition(of request: Request) throws(Problem) -> WriteCondition? {
        let ifMatch = try tags(request.headers[values: .ifMatch], weak: false, name: "If-Match")
        let ifNoneMatch = try tags(request.headers[values: .ifNoneMatch], weak: true, name: "If-None-Match")
        guard ifMatch != nil || ifNoneMatch != nil else { return nil }
        return WriteCondition(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch)
    }

    /// The tags of a header's fields (`name`): `*`, or entity tags as sent. Weak tags
    /// (`W/"…"`) are dropped where the comparison is strong (`If-Match`), and compared as
    /// strong ones where it is weak (`If-None-Match`). Nil when the header is absent.
    ///
    /// - Throws: `bad-request` when the fields are not `*` alone or a list of entity tags
    ///   (RFC 9110 13.1.1): a write must not run on a condition misread (`*, "a"` as `*`,
    ///   an unquoted `abc` as a tag no item has).
    static func tags(_ values: [String], weak: Bool, name: String) throws(Problem) -> Set<String>? {
        guard !values.isEmpty else { return nil }
        let members = values.flatMap(listMembers).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if values.count == 1, values[0].trimmingCharacters(in: .whitespaces) == "*" { return ["*"] }
        guard !members.isEmpty else {
            throw Problem(.badRequest, detail: "\(name) is empty; send \(name): * or the entity tags it names.")
        }
        var tags = Set<String>()
        for member in members {
            let isWeak = member.hasPrefix("W/")
            let tag = isWeak ? String(member.dropFirst(2)) : member
            guard isEntityTag(tag) else {
                throw Problem(
                    .badRequest,
                    detail: "\(name): '\(member)' is not an entity tag; send \(name): * alone, or tags as "
                        + "answered, quotes included (\(name): \"…\")."
                )
            }
            if isWeak && !weak { continue }
            tags.insert(tag)
        }
        return tags
    }

    /// The members of a list field (RFC 9110 5.6.1): split at commas outside quotes, since
    /// an entity tag may hold a comma (`"a,b"`).
    private static func listMembers(_ value: String) -> [Substring] {
        var members: [Substring] = []
        var start = value.startIndex
        var quoted = false
        for index in value.indices {
            switch value[index] {
            case "\"": quoted.toggle()
            case "," where !quoted:
                members.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
        }
        members.append(value[start...])
        return members
    }

    /// Whether `text` is an opaque tag: a quoted string of visible characters other than
    /// `"` (RFC 9110 8.8.3).
    private static func isEntityTag(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return false
        }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }
}
