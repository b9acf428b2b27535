import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A table with PostgreSQL time columns (`timestamptz`, `date`, `timestamp(0)`), as most
/// tables other programs write have (`created_at timestamptz DEFAULT now()`): they were
/// refused at start. Now they are shown as ISO 8601 text, views sort, section, slice and
/// open at an item by them in the text's order (which is the times'), and writes take
/// ISO 8601 text.
@Suite struct PostgresTimeColumnTests {
    static let fields: [String: FieldType] = ["title": .string, "at": .string, "day": .string, "local": .string]
    static let shown = ["title", "at", "day", "local"]

    static let definition = ListDefinition(
        name: "events",
        title: "Events",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "by_at",
                isDefault: true,
                sort: [SortKey("at", .descending), SortKey("id", .descending)],
                idField: "id",
                section: SectionRule(field: "at", grouping: .day),
                cellType: .fixed("event"),
                fields: shown
            ),
            View(
                name: "by_day",
                sort: [SortKey("day"), SortKey("id")],
                idField: "id",
                cellType: .fixed("event"),
                fields: shown,
                parameters: [ViewParameter(name: "day", field: "day", type: .string, isRequired: false)]
            ),
            View(
                name: "by_local",
                sort: [SortKey("local"), SortKey("id")],
                idField: "id",
                section: SectionRule(field: "local", grouping: .month),
                cellType: .fixed("event"),
                fields: shown
            ),
        ],
        isWritable: true,
        rules: FieldRules(types: fields)
    )

    static let source = StoreSource(kind: .table("events"), fieldTypes: fields)

    /// A store with a new table `events`, its columns of each time type.
    static func table() async throws -> PostgresFixture {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            """
            CREATE TABLE events (id bigserial PRIMARY KEY, title text, at timestamptz NOT NULL DEFAULT now(),
                day date, local timestamp(0), rev bigint)
            """
        )
        return fixture
    }

    static func adapter(
        over fixture: PostgresFixture,
        _ definition: ListDefinition = definition
    ) async throws
        -> ListAdapter
    {
        try await fixture.store.adapter(
            for: definition,
            source: source,
            signer: CursorSigner(secret: SampleList.secret)
        )
    }

    /// The field `name` of a cell's data.
    static func field(_ name: String, of cell: Cell) -> JSONValue? {
        guard case .object(let data) = cell.data else { return nil }
        return data[name]
    }

    /// Every item of the list as the default view reads it, by id.
    static func items(_ adapter: ListAdapter) async throws -> [Item] {
        var items: [Item] = []
        var cursor: String?
        repeat {
            let page = try await adapter.page(view: "by_day", limit: "50", cursor: cursor)
            items += page.items.map { cell in
                guard case .object(var data) = cell.data else { return Item([:]) }
                data["id"] = .integer(Int64(cell.id) ?? -1)
                return Item(data)
            }
            cursor = page.next
        } while cursor != nil
        return items
    }

    @Test func timeColumnsAreShownAsISOTextAndViewsWalkSectionAndOpenInTheirOrder() async throws {
        let fixture = try await Self.table()
        // Rows another program wrote: times in other zones, several in one second, the
        // infinities, a day and a local time now and then.
        try await fixture.store.primary.query(
            """
            INSERT INTO events (title, at, day, local)
            SELECT 'e' || g,
                CASE WHEN g = 1 THEN 'infinity' WHEN g = 2 THEN '-infinity'
                ELSE TIMESTAMPTZ '2026-11-19 23:04:00.5+02' + (g % 9) * INTERVAL '7 hours' + (g % 4) * INTERVAL '1 microsecond' END,
                CASE WHEN g % 5 = 0 THEN NULL ELSE DATE '2026-11-28' + (g % 3) END,
                CASE WHEN g % 3 = 0 THEN NULL ELSE TIMESTAMP '2026-10-31 08:00:00' + g * INTERVAL '2 days' END
            FROM generate_series(1, 40) AS g
            """
        )
        let adapter = try await Self.adapter(over: fixture)
        let items = try await Self.items(adapter)
        #expect(items.count == 40)
        let byTitle = Dictionary(items.map { ($0["title"].idString, $0) }, uniquingKeysWith: { first, _ in first })
        // As PostgreSQL holds them: in UTC with six fractional digits, the date alone, the
        // local time as written (its column keeps whole seconds).
        #expect(byTitle["e9"]?["at"] == .string("2026-11-19T21:04:00.500001Z"), "\(byTitle["e9"] ?? Item([:]))")
        #expect(byTitle["e1"]?["at"] == .string("infinity"))
        #expect(byTitle["e2"]?["at"] == .string("-infinity"))
        #expect(byTitle["e1"]?["day"] == .string("2026-11-29"))
        #expect(byTitle["e5"]?["day"] == .null)
        #expect(byTitle["e1"]?["local"] == .string("2026-11-02T08:00:00"))
        #expect(byTitle["e3"]?["local"] == .null)

        for name in ["by_at", "by_day", "by_local"] {
            let view = try Self.definition.view(named: name)
            let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
            for limit in [1, 7] {
                var check = try await SampleList.walk(adapter, view: name, limit: limit)
                check.expectOrder(expected)
                #expect(check.violations == [], "\(name), limit \(limit)")
            }
            for id in [expected[0], expected[13], expected[expected.count - 1]] {
                let page = try await adapter.page(view: name, limit: "5", cursor: nil, around: id)
                #expect(page.items.map(\.id).contains(id), "\(name) around \(id)")
                let location = try await adapter.locate(id: id, view: name)
                #expect(expected.firstIndex(of: id) == location.position, "\(name) \(id)")
            }
        }
        // Sections by the day of a timestamptz (UTC), by the month of a local time.
        let days = try await adapter.sectionInfo(view: "by_at")
        var expectedDays: [(String, Int)] = []
        for item in SampleList.expectedOrder(items, view: try Self.definition.view(named: "by_at")) {
            let key = String(item["at"].idString.prefix(10))
            if expectedDays.last?.0 == key {
                expectedDays[expectedDays.count - 1].1 += 1
            } else {
                expectedDays.append((key, 1))
            }
        }
        #expect(days.sections.map(\.count) == expectedDays.map(\.1), "\(days.sections)")
        #expect(days.sections.first?.count == 1 && days.sections.count == expectedDays.count)
        let months = try await adapter.sectionInfo(view: "by_local")
        #expect(months.sections.map(\.count).reduce(0, +) == 40 && months.sections.count == 4, "\(months.sections)")

        // A slice by a date parameter: its items alone.
        let slice = SliceRequest(parameters: ["day": ["2026-11-29"]])
        var check = try await SampleList.walk(adapter, view: "by_day", limit: 4, slice: slice)
        let sliced = items.filter { $0["day"] == .string("2026-11-29") }
        check.expectOrder(
            SampleList.expectedOrder(sliced, view: try Self.definition.view(named: "by_day")).map { $0["id"].idString }
        )
        #expect(check.violations == [] && !sliced.isEmpty)
    }
}

extension PostgresTimeColumnTests {
    /// Writes take ISO 8601 text into time columns and answer with the item as stored; a
    /// field left out takes its column's default (`now()`); text that is no time is the
    /// item's refusal, with nothing stored.
    @Test func writesTakeISOTextAndRefuseWhatIsNoTime() async throws {
        let fixture = try await Self.table()
        let adapter = try await Self.adapter(over: fixture)
        let before = Date()
        let defaulted = try await adapter.create(body: .object(["data": .object(["title": .string("now")])]))
        let at = Self.field("at", of: defaulted.cell)?.idString ?? ""
        // `now()` as the service shows a timestamptz: UTC, six fractional digits.
        #expect(at.count == 27 && at.hasSuffix("Z") && Array(at)[10] == "T", "\(at)")
        let parsed = try Date(String(at.prefix(19)) + "Z", strategy: .iso8601)
        #expect(abs(parsed.timeIntervalSince(before)) < 300, "\(at)")

        let written = try await adapter.create(
            body: .object([
                "data": .object([
                    "title": .string("given"), "at": .string("2026-11-19T21:04:00+02:00"),
                    "day": .string("2026-11-19"), "local": .string("2026-11-19T08:30:00.7"),
                ])
            ])
        )
        #expect(Self.field("at", of: written.cell) == .string("2026-11-19T19:04:00.000000Z"))
        #expect(Self.field("day", of: written.cell) == .string("2026-11-19"))
        // The column keeps whole seconds: PostgreSQL rounds.
        #expect(Self.field("local", of: written.cell) == .string("2026-11-19T08:30:01"))
        let id = written.cell.id
        let patched = try await adapter.patch(
            id: id,
            body: .object(["data": .object(["at": .string("2026-11-20T00:00:00.123Z")])])
        )
        #expect(Self.field("at", of: patched.cell) == .string("2026-11-20T00:00:00.123000Z"))

        let start = try await adapter.currentVersion()
        for (field, text) in [("at", "not a time"), ("day", "2026-02-30"), ("local", "yesterday at noon")] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: id, body: .object(["data": .object([field: .string(text)])]))
            }
            #expect(refused?.code == .invalidItem, "\(field): \(String(describing: refused))")
            #expect(refused?.fieldProblems.isEmpty == false, "\(field)")
        }
        // A replace that lacks `at` would empty a NOT NULL column: refused, naming it.
        let emptied = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.replace(id: id, body: .object(["data": .object(["title": .string("x")])]))
        }
        #expect(emptied?.code == .invalidItem && emptied?.fieldProblems.map(\.field) == ["at"])
        #expect(try await adapter.currentVersion() == start, "nothing was written")
        let kept = try await adapter.locate(id: id, view: nil).item
        #expect(Self.field("at", of: kept) == .string("2026-11-20T00:00:00.123000Z"))
        #expect(Self.field("title", of: kept) == .string("given"))
    }

    /// A time without a zone written into a timestamptz column is read as UTC, whatever
    /// zone the database's sessions default to.
    @Test func aTimeWithoutAZoneIsUTCWhateverTheServersZone() async throws {
        let fixture = try await Self.table()
        let database = URLComponents(string: fixture.url)?.path.dropFirst() ?? ""
        try await fixture.store.primary.query(
            PostgresQuery(unsafeSQL: "ALTER DATABASE \(database) SET TimeZone = 'Asia/Tokyo'")
        )
        let other = try await PostgresFixture(sharing: fixture)
        let adapter = try await Self.adapter(over: other)
        let written = try await adapter.create(
            body: .object(["data": .object(["title": .string("t"), "at": .string("2026-11-19T21:04:00")])])
        )
        #expect(Self.field("at", of: written.cell) == .string("2026-11-19T21:04:00.000000Z"))
        // What another program's session in the database's zone reads: the same instant.
        let rows = try await other.store.primary.withConnection { connection in
            try await connection.query("SET TimeZone = 'Asia/Tokyo'", logger: PostgresFixture.logger)
            var texts: [String] = []
            for try await text in try await connection.query(
                "SELECT CAST(at AS text) FROM events",
                logger: PostgresFixture.logger
            )
            .decode(String.self) {
                texts.append(text)
            }
            return texts
        }
        #expect(rows == ["2026-11-20 06:04:00+09"])
    }

    /// The views' indexes hold the time's text, and a page reads one range of them.
    @Test func theViewsIndexesHoldTheTimesText() async throws {
        let fixture = try await Self.table()
        _ = try await Self.adapter(over: fixture)
        let indexes = try await fixture.store.primary.query(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'events' ORDER BY indexname"
        )
        var definitions: [String] = []
        for try await definition in indexes.decode(String.self) { definitions.append(definition) }
        #expect(
            definitions.contains { $0.contains("data_mediator_time_text(at, 6) COLLATE \"C\" DESC") },
            "\(definitions)"
        )
        #expect(definitions.contains { $0.contains("data_mediator_time_text(local, 0)") }, "\(definitions)")
        try await fixture.store.primary.withConnection { connection in
            try await connection.query("SET enable_seqscan = off", logger: PostgresFixture.logger)
            let form = TimeText.form(of: "at", kind: .timestamptz, digits: 6)
            var plan = ""
            for try await line in try await connection.query(
                PostgresQuery(
                    unsafeSQL: "EXPLAIN SELECT id FROM events WHERE (\(form)) COLLATE \"C\" < '2026' "
                        + "ORDER BY (\(form)) COLLATE \"C\" DESC, id DESC LIMIT 5"
                ),
                logger: PostgresFixture.logger
            )
            .decode(String.self) {
                plan += line + "\n"
            }
            #expect(plan.contains("Index") && plan.contains("dm_"), "\(plan)")
        }
    }

    /// A time column as the list's id, or declared another type than string, is refused
    /// at start with the way out.
    @Test func aTimeIDOrATimeDeclaredANumberIsRefusedAtStart() async throws {
        let fixture = try await Self.table()
        var fields = Self.fields
        fields["at"] = .integer
        let numbered = await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(
                for: Self.definition,
                source: StoreSource(kind: .table("events"), fieldTypes: fields),
                signer: CursorSigner(secret: SampleList.secret)
            )
        }
        #expect(
            "\(numbered.map { "\($0)" } ?? "")".contains("'at' is declared integer"),
            "\(String(describing: numbered))"
        )
        try await fixture.store.primary.query(
            "CREATE TABLE stamps (at timestamptz PRIMARY KEY, title text, rev bigint)"
        )
        let keyed = ListDefinition(
            name: "stamps",
            title: "Stamps",
            idField: "at",
            revisionField: "rev",
            views: [
                View(
                    name: "by_at",
                    isDefault: true,
                    sort: [SortKey("at")],
                    idField: "at",
                    cellType: .fixed("s"),
                    fields: ["title"]
                )
            ],
            isWritable: true,
            rules: FieldRules(types: ["title": .string])
        )
        let byTime = await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(
                for: keyed,
                source: StoreSource(kind: .table("stamps"), fieldTypes: ["at": .string, "title": .string]),
                signer: CursorSigner(secret: SampleList.secret)
            )
        }
        #expect(
            "\(byTime.map { "\($0)" } ?? "")".contains("id column 'at' is a timestamptz"),
            "\(String(describing: byTime))"
        )
    }
}

extension PostgresTimeColumnTests {
    /// An import writes ISO 8601 text into time columns; a record whose text is no time is
    /// a bad record, the others go in.
    @Test func anImportWritesTimesAndRefusesWhatIsNone() async throws {
        let fixture = try await Self.table()
        let provider = try await fixture.store.provider(for: Self.definition, source: Self.source)
        let importer = try SQLImporter(reader: provider.reader, list: Self.definition, source: Self.source)
        let records = [
            ImportRecord(line: 1, fields: ["id": .integer(1), "at": .string("2026-11-19T21:04:00Z")]),
            ImportRecord(line: 2, fields: ["id": .integer(2), "at": .string("the day after")]),
            ImportRecord(
                line: 3,
                fields: ["id": .integer(3), "at": .string("2026-11-20"), "day": .string("2026-11-20")]
            ),
        ]
        let summary = try await importer.run(records, skipBad: true, batch: 10)
        #expect(summary.imported == 2 && summary.rejections.map(\.line) == [2], "\(summary.rejections)")
        let adapter = try await Self.adapter(over: fixture)
        let page = try await adapter.page(view: "by_at", limit: "5", cursor: nil)
        #expect(
            page.items.map { Self.field("at", of: $0) } == [
                .string("2026-11-20T00:00:00.000000Z"), .string("2026-11-19T21:04:00.000000Z"),
            ]
        )
    }
}
