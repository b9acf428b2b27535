import DataMediator

/// Checks a walk of a view, page by page, against the rules of API.md "A page", and
/// collects every violation as a sentence (an empty list means the walk is right).
///
/// Rules checked: each page with `next` holds exactly `limit` items; the loading section
/// is present exactly when `next` is, last, with one `loading` item whose `data.next` is
/// the page's `next`; section kinds are `items` and `loading` only; `kind`+`id` is unique
/// in a page; a section id appears in one contiguous run across the walk; `continues` is
/// true exactly for a page's first section when it carries on the previous page's last;
/// no item appears twice; `prev` is null on the first page and a cursor on every other; and,
/// when given, the items come in `expectedIDs` order.
public struct WalkCheck {
    /// Every violation found, in the order found.
    public private(set) var violations: [String] = []
    /// Every data item of the walk, in order.
    public private(set) var items: [Cell] = []
    /// The sections of the walk, merged across page boundaries: id, title, item count.
    public private(set) var sections: [(id: String, title: String?, count: Int)] = []
    /// The number of pages checked.
    public private(set) var pageCount = 0

    // Ids are kept as their UTF-8 bytes, as the stores compare them: Swift's `==` takes
    // "é" and "e" with a combining accent as one string, which are two ids to a store.
    private var seenItems = Set<[UInt8]>()
    private var closedSections = Set<[UInt8]>()
    private var finished = false

    /// Creates an empty check.
    public init() {}

    /// Checks the next page of the walk.
    public mutating func add(_ page: Page) {
        pageCount += 1
        let label = "page \(pageCount)"
        if finished { violations.append("\(label): comes after a page with no next") }
        var keys = Set<[UInt8]>()
        for (index, section) in page.sections.enumerated() {
            if !keys.insert(Array("\(section.kind.rawValue)/\(section.id)".utf8)).inserted {
                violations.append("\(label): kind+id \(section.kind.rawValue)/\(section.id) repeats")
            }
            if section.kind == .loading {
                checkLoading(section, index: index, page: page, label: label)
                continue
            }
            if section.items.isEmpty { violations.append("\(label): section \(section.id) is empty") }
            let carriesOn = index == 0 && sections.last.map { $0.id.isExactly(section.id) } == true
            if section.continues != carriesOn {
                violations.append(
                    "\(label): section \(section.id) has continues \(section.continues), expected \(carriesOn)"
                )
            }
            if carriesOn, let last = sections.indices.last {
                sections[last].count += section.items.count
            } else {
                if let previous = sections.last { closedSections.insert(Array(previous.id.utf8)) }
                if closedSections.contains(Array(section.id.utf8))
                    || sections.contains(where: { $0.id.isExactly(section.id) })
                {
                    violations.append("\(label): section \(section.id) appears again after it ended")
                }
                sections.append((section.id, section.title, section.items.count))
            }
            for item in section.items {
                if !seenItems.insert(Array(item.id.utf8)).inserted {
                    violations.append("\(label): item \(item.id) served twice")
                }
                if item.type == Cell.loadingType {
                    violations.append("\(label): data item \(item.id) has type loading")
                }
                items.append(item)
            }
        }
        if (pageCount == 1) != (page.prev == nil) {
            violations.append(
                "\(label): prev is \(page.prev == nil ? "null" : "a cursor") on a forward walk's \(label)"
            )
        }
        let count = page.items.count
        if page.next != nil, count != page.limit {
            violations.append("\(label): has next but holds \(count) items, not limit \(page.limit)")
        }
        if page.next == nil {
            finished = true
            if page.sections.contains(where: { $0.kind == .loading }) {
                violations.append("\(label): last page has a loading section")
            }
        }
        if count > page.limit { violations.append("\(label): holds \(count) items, above limit \(page.limit)") }
    }

    private mutating func checkLoading(_ section: PageSection, index: Int, page: Page, label: String) {
        if index != page.sections.count - 1 { violations.append("\(label): loading section is not last") }
        if page.next == nil { violations.append("\(label): loading section on a page without next") }
        if section.id != Mediator.loadingID || section.continues || section.title != nil {
            violations.append("\(label): loading section is not {id: loading, title: null, continues: false}")
        }
        guard section.items.count == 1, let item = section.items.first else {
            violations.append("\(label): loading section holds \(section.items.count) items")
            return
        }
        if item.type != Cell.loadingType || item.data != .object(["next": page.next.map(JSONValue.string) ?? .null]) {
            violations.append("\(label): loading item is not {type: loading, data: {next: <page next>}}")
        }
    }

    /// Checks that the walk served exactly `ids`, in this order.
    public mutating func expectOrder(_ ids: [String]) {
        let served = items.map(\.id)
        if served.count != ids.count || zip(served, ids).contains(where: { !$0.isExactly($1) }) {
            let firstDifference = zip(served, ids).enumerated().first { !$0.element.0.isExactly($0.element.1) }?.offset
            violations.append(
                "served \(served.count) items, expected \(ids.count); first difference at \(firstDifference.map(String.init) ?? "the end")"
            )
        }
    }

    /// Checks that the walk's sections and counts are `expected` (id, title, count), in order.
    public mutating func expectSections(_ expected: [SectionInfo.Section]) {
        let walked = sections.map { SectionInfo.Section(id: $0.id, title: $0.title, count: $0.count) }
        let same =
            walked.count == expected.count
            && zip(walked, expected).allSatisfy {
                $0.id.isExactly($1.id) && $0.title == $1.title && $0.count == $1.count
            }
        if !same {
            violations.append(
                "walked sections \(walked.prefix(5))... differ from section info \(expected.prefix(5))..."
            )
        }
    }
}
