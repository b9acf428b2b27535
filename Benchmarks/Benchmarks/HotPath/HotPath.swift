import Benchmark
import DataMediator

// The hot path of `GET /lists/{list}/items`, without HTTP and without the store: the
// mediator sectioning a window into a page, the cursor signed for the next page and
// verified on the way back in, one item presented as a cell, and the page written as JSON.
//
// Inputs are built once, outside the measurement, and look like the demo's `transactions`
// list in its `chronological` view (sections by day, a `rev` column). Each benchmark runs
// its operation 1,000 times an iteration (`scalingFactor: .kilo`), so the table shows
// time and mallocs per operation.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    let fixture = Fixture()

    Benchmark("Mediator.page: 21 items into a 20-item page by day") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(fixture.page())
        }
    }

    Benchmark("CursorSigner.sign") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(fixture.signer.sign(fixture.cursor))
        }
    }

    Benchmark("CursorSigner.verify") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.signer.verify(fixture.token, list: Fixture.list, view: fixture.view))
        }
    }

    Benchmark("FieldPresenter.cell(for:)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(fixture.presenter.cell(for: fixture.items[0]))
        }
    }

    Benchmark("Page.json: 20 items") { benchmark in
        let page = fixture.page()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(page.json())
        }
    }
}

/// The inputs of the benchmarks: a view, its presenter, a signer, a window of 21 items
/// and a typical next-page cursor.
struct Fixture: Sendable {
    static let list = "transactions"
    static let limit = 20

    let view: View
    let presenter: FieldPresenter
    let signer: CursorSigner
    let mediator: Mediator
    /// 21 items in view order: 12 on 20 Nov, 9 on 19 Nov, so the page has two day
    /// sections and the 21st item only tells that more follow.
    let items: [Item]
    let cursor: Cursor
    let token: String

    init() {
        view = View(
            name: "chronological",
            isDefault: true,
            sort: [SortKey("created_at", .descending), SortKey("id", .descending)],
            idField: "id",
            section: SectionRule(field: "created_at", grouping: .day),
            cellType: .fixed("transaction"),
            fields: ["player", "points", "reason", "created_at"]
        )
        presenter = FieldPresenter(view: view, idField: "id", revisionField: "rev")
        signer = CursorSigner(secret: Array("a-benchmark-cursor-secret-of-32b".utf8))
        mediator = Mediator(signer: signer)

        let layout = ItemLayout(["id", "rev", "player", "points", "reason", "created_at"])
        let players = ["nora", "yusuf", "bea", "pia", "xia", "iris", "uma", "bo"]
        let reasons = ["match won", "match lost", "penalty", "quest completed"]
        items = (0..<(Self.limit + 1)).map { index in
            let (day, hour) = index < 12 ? ("2026-11-20", 11 - index) : ("2026-11-19", 23 - (index - 12))
            let minute = (index * 37) % 60
            let createdAt = "\(day)T\(Self.twoDigits(hour)):\(Self.twoDigits(minute)):\(Self.twoDigits(index))Z"
            return Item(
                layout: layout,
                values: [
                    .integer(Int64(100_000 - index)),
                    .integer(1),
                    .string(players[index % players.count]),
                    .integer(Int64(index % 7) - 3),
                    .string(reasons[index % reasons.count]),
                    .string(createdAt),
                ]
            )
        }
        cursor = Cursor(
            list: Self.list,
            view: view.name,
            position: view.position(of: items[Self.limit - 1]),
            inclusive: false,
            continuing: "2026-11-19"
        )
        token = signer.sign(cursor)
    }

    /// The page the mediator makes of the 21 items, continuing a section of the page before.
    func page() -> Page {
        mediator.page(
            list: Self.list,
            view: view,
            presenter: presenter,
            limit: Self.limit,
            items: Array(items.prefix(Self.limit)),
            version: 0,
            continuing: "2026-11-20",
            before: .held,
            after: items.count > Self.limit ? .more : .end
        )
    }

    private static func twoDigits(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }
}
