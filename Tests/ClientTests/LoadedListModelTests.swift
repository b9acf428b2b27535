import Foundation
import Testing

@testable import DataMediatorClient

/// A loaded list driven by random writes and pages against a model of the view: at every
/// step it holds items in the view's order, in their sections, with none skipped before
/// the cursor; once every page is read, it holds the view.
@Suite struct LoadedListModelTests {
    /// A sorted view: items by key, sections of 40 keys each, pages of `limit` after a key.
    struct View {
        var items: [(key: Int, id: String)]
        let limit = 5

        static func section(of key: Int) -> String { "s\(key / 40)" }

        func index(of id: String) -> Int? { items.firstIndex { $0.id == id } }

        /// The change that puts item `at` where it is now.
        func placement(of at: Int) -> ListChange {
            let (key, id) = items[at]
            let section = Self.section(of: key)
            let after = at > 0 && Self.section(of: items[at - 1].key) == section ? items[at - 1].id : nil
            let head = items.firstIndex { Self.section(of: $0.key) == section } ?? at
            return ListChange(
                op: .insert,
                version: 2,
                item: ListItem(id: id, type: "row", rev: "1", data: .object([:])),
                section: section,
                sectionAfter: head > 0 ? Self.section(of: items[head - 1].key) : nil,
                after: after
            )
        }

        /// The page after `key` (from the start when nil), as the server answers it.
        func page(after key: Int?) throws -> PageBody {
            let rest = items.filter { item in key.map { item.key > $0 } ?? true }
            let shown = Array(rest.prefix(limit))
            var sections: [(String, [String])] = []
            for item in shown {
                let section = Self.section(of: item.key)
                if sections.last?.0 == section {
                    sections[sections.count - 1].1.append(item.id)
                } else {
                    sections.append((section, [item.id]))
                }
            }
            let next = rest.count > limit ? shown.last.map { "k\($0.key)" } : nil
            return try BottomBoundaryTests.page(sections, next: next)
        }
    }

    @Test(arguments: 1...100)
    func randomWritesAndPagesKeepTheViewsOrder(seed: Int) throws {
        var random = Random(seed: UInt64(seed))
        var view = View(items: (0..<40).map { (key: $0 * 20, id: "i\($0)") })
        var list = LoadedList(list: "l")
        list.replace(with: try view.page(after: nil))
        var made = 40
        func freshKey() -> Int {
            while true {
                let key = random.below(2_000)
                if !view.items.contains(where: { $0.key == key }) { return key }
            }
        }
        for step in 0..<300 {
            let held = list.sections.flatMap(\.items).map(\.id)
            let roll = random.below(100)
            // The last held item is the one most moved and deleted: the bottom boundary.
            let target =
                random.next() % 2 == 0
                ? held.last.flatMap(view.index(of:))
                : (view.items.isEmpty ? nil : random.below(view.items.count))
            if roll < 45 || view.items.isEmpty {
                // Often right after the last held item, where a burst lands beside it.
                var key = freshKey()
                if roll < 35, let last = held.last, let at = view.index(of: last) {
                    let low = view.items[at].key
                    let high = at + 1 < view.items.count ? view.items[at + 1].key : low + 40
                    if high - low > 1 { key = low + 1 + random.below(high - low - 1) }
                }
                made += 1
                view.items.append((key: key, id: "i\(made)"))
                view.items.sort { $0.key < $1.key }
                list.apply(view.placement(of: try #require(view.index(of: "i\(made)"))))
            } else if roll < 70, let target {
                let id = view.items.remove(at: target).id
                list.apply(ListChange(op: .delete, version: 2, deletedID: id))
            } else if roll < 88, let target {
                view.items[target].key = freshKey()
                let id = view.items[target].id
                view.items.sort { $0.key < $1.key }
                var change = view.placement(of: try #require(view.index(of: id)))
                change = ListChange(
                    op: .move,
                    version: 2,
                    item: change.item,
                    section: change.section,
                    sectionAfter: change.sectionAfter,
                    after: change.after
                )
                list.apply(change)
            } else if let next = list.next {
                list.append(try view.page(after: Int(next.dropFirst())))
            }
            try Self.check(list, against: view, "seed \(seed) step \(step)")
        }
        while let next = list.next { list.append(try view.page(after: Int(next.dropFirst()))) }
        let walked = list.sections.flatMap { section in section.items.map { "\(section.id):\($0.id)" } }
        #expect(walked == view.items.map { "\(View.section(of: $0.key)):\($0.id)" }, "seed \(seed): the whole view")
    }

    /// What holds at every step.
    static func check(_ list: LoadedList, against view: View, _ step: String) throws {
        let keys = Dictionary(uniqueKeysWithValues: view.items.map { ($0.id, $0.key) })
        var previous = Int.min
        var seen = Set<String>()
        for section in list.sections {
            try #require(seen.insert(section.id).inserted, "\(step): section \(section.id) twice")
            for item in section.items {
                let key = try #require(keys[item.id], "\(step): \(item.id) is not in the view")
                try #require(View.section(of: key) == section.id, "\(step): \(item.id) in \(section.id)")
                try #require(key > previous, "\(step): \(item.id) out of the view's order")
                previous = key
            }
        }
        // Every item before the cursor's place is held.
        let held = Set(list.sections.flatMap(\.items).map(\.id))
        let reach = list.next.flatMap { Int($0.dropFirst()) } ?? Int.max
        for item in view.items where item.key <= reach {
            try #require(held.contains(item.id), "\(step): \(item.id) (key \(item.key)) before \(reach) is missing")
        }
    }
}
