import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

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
                    "opens": .string("7:05"),
                ])
            ])
        )
        #expect(Self.field("at", of: written.cell) == .string("2026-11-19T19:04:00.000000Z"))
        #expect(Self.field("day", of: written.cell) == .string("2026-11-19"))
        // The column keeps whole seconds: PostgreSQL rounds.
        #expect(Self.field("local", of: written.cell) == .string("2026-11-19T08:30:01"))
        #expect(Self.field("opens", of: written.cell) == .string("07:05:00"))
        let id = written.cell.id
        let patched = try await adapter.patch(
            id: id,
            body: .object(["data": .object(["at": .string("2026-11-20T00:00:00.123Z")])])
        )
        #expect(Self.field("at", of: patched.cell) == .string("2026-11-20T00:00:00.123000Z"))
        // A zone given for a time without one is taken: the instant's time in UTC (it was
        // dropped, 10:00 stored for 10:00+05:00).
        let zoned = try await adapter.patch(
            id: id,
            body: .object(["data": .object(["local": .string("2026-11-21T10:00:00+05:00")])])
        )
        #expect(Self.field("local", of: zoned.cell) == .string("2026-11-21T05:00:00"))
        // So is a time of day's (probe 41: 12:00:00+02 was stored as 12:00:00).
        // The end of the day stays the end of the day (probe 46: `24:00:00` was stored as
        // `00:00:00`, the start of the day), and orders after every other time.
        for (given, stored) in [
            ("12:00:00+02", "10:00:00"), ("23:30-01:00", "00:30:00"), ("24:00:00+02", "22:00:00"),
            ("08:15", "08:15:00"), ("24:00:00", "24:00:00"),
        ] {
            let timed = try await adapter.patch(id: id, body: .object(["data": .object(["opens": .string(given)])]))
            #expect(Self.field("opens", of: timed.cell) == .string(stored), "\(given)")
        }
        let late = try await adapter.create(
            body: .object(["data": .object(["title": .string("late"), "opens": .string("23:59:59.999999")])])
        )
        let byOpens = try await adapter.page(view: "by_opens", limit: "5", cursor: nil).items
            .filter { Self.field("opens", of: $0) != .null }
        #expect(
            byOpens.map(\.id) == [late.cell.id, id],
            "\(byOpens.map { Self.field("opens", of: $0) })"
        )

        let start = try await adapter.currentVersion()
        for (field, text) in [
            ("at", "not a time"), ("day", "2026-02-30"), ("local", "yesterday at noon"), ("opens", "25:61"),
        ] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: id, body: .object(["data": .object([field: .string(text)])]))
            }
            #expect(refused?.code == .invalidItem, "\(field): \(String(describing: refused))")
            // PostgreSQL names the value, not the column: the refusal names the field.
            #expect(refused?.fieldProblems.map(\.field) == [field], "\(field): \(String(describing: refused))")
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

    /// A time whose year (in UTC) is outside 1 to 9999 is refused naming its field, with
    /// nothing stored: a date BC read back without its era (`to_char`), so a PUT of what a
    /// GET gave moved it thousands of years, and a year past 9999 sorted by its text among
    /// the others (the largest date was refused naming `data`, by the read back).
    @Test func aYearOutsideOneTo9999IsRefusedNamingItsField() async throws {
        let fixture = try await Self.table()
        let adapter = try await Self.adapter(over: fixture)
        let item = try await adapter.create(body: .object(["data": .object(["title": .string("kept")])]))
        let start = try await adapter.currentVersion()
        for (field, text) in [
            ("day", "0044-03-15 BC"), ("day", "10000-01-01"), ("day", "5874897-12-31"),
            ("at", "4713-01-01 00:00 BC"), ("at", "10000-01-01T00:00:00Z"),
            // The year in UTC: the first hour of year 1 at +01 is year 1 BC.
            ("at", "0001-01-01T00:30:00+01"), ("local", "0001-01-01T00:30:00+01"), ("local", "12026-01-01T00:00"),
            // Rounded as the column keeps it (whole seconds), it is year 10000 (probe 47: stored).
            ("local", "9999-12-31T23:59:59.5"),
        ] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: item.cell.id, body: .object(["data": .object([field: .string(text)])]))
            }
            #expect(refused?.code == .invalidItem, "\(field) \(text): \(String(describing: refused))")
            #expect(refused?.fieldProblems.map(\.field) == [field], "\(field) \(text): \(String(describing: refused))")
            #expect(refused?.message.contains("outside the years 1 to 9999") == true, "\(String(describing: refused))")
        }
        #expect(try await adapter.currentVersion() == start, "nothing was written")
        // The years' edges, and the infinities, which show as written.
        for (field, text, shown) in [
            ("day", "0001-01-01", "0001-01-01"), ("day", "9999-12-31", "9999-12-31"), ("day", "-infinity", "-infinity"),
            ("at", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"),
            ("at", "10000-01-01T01:00:00+02", "9999-12-31T23:00:00.000000Z"),
            ("local", "9999-12-31T23:59:59", "9999-12-31T23:59:59"), ("at", "infinity", "infinity"),
        ] {
            let written = try await adapter.patch(
                id: item.cell.id,
                body: .object(["data": .object([field: .string(text)])])
            )
            #expect(Self.field(field, of: written.cell) == .string(shown), "\(field) \(text)")
        }
    }

    /// A write with several times its columns refuse names each of them, not only the one
    /// PostgreSQL stopped at (probe 48: `422` named one field a write), with nothing stored.
    @Test func everyRefusedTimeIsNamed() async throws {
        let fixture = try await Self.table()
        let adapter = try await Self.adapter(over: fixture)
        let item = try await adapter.create(body: .object(["data": .object(["title": .string("kept")])]))
        let start = try await adapter.currentVersion()
        let bad: [String: JSONValue] = [
            "at": .string("not a time"), "day": .string("0044-03-15 BC"), "local": .string("12026-01-01T00:00"),
            "opens": .string("25:61"), "title": .string("changed"),
        ]
        for write in ["patch", "create"] {
            let refused = await #expect(throws: DataMediatorError.self) {
                if write == "patch" {
                    _ = try await adapter.patch(id: item.cell.id, body: .object(["data": .object(bad)]))
                } else {
                    _ = try await adapter.create(body: .object(["data": .object(bad)]))
                }
            }
            #expect(refused?.code == .invalidItem)
            #expect(
                Set(refused?.fieldProblems.map(\.field) ?? []) == ["at", "day", "local", "opens"],
                "\(write): \(String(describing: refused))"
            )
        }
        #expect(try await adapter.currentVersion() == start, "nothing was written")
        // Text that is no time is refused in the words of its column's type, though a
        // `time` and a `timestamp` are read through their zoned types (it said
        // "time with time zone" of a `time` column).
        let words = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(
                body: .object(["data": .object(["opens": .string("noonish"), "local": .string("someday")])])
            )
        }
        let details = Dictionary(uniqueKeysWithValues: (words?.fieldProblems ?? []).map { ($0.field, $0.detail) })
        #expect(details["opens"]?.contains("type time:") == true, "\(details)")
        #expect(details["local"]?.contains("type timestamp:") == true, "\(details)")
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
        let definitions = try await fixture.indexDefinitions(of: "events")
        #expect(
            definitions.contains { $0.contains("data_mediator_time_text(at, 6) COLLATE \"C\" DESC") },
            "\(definitions)"
        )
        #expect(definitions.contains { $0.contains("data_mediator_time_text(local, 0)") }, "\(definitions)")
        #expect(definitions.contains { $0.contains("((opens)::text) COLLATE \"C\"") }, "\(definitions)")
        let form = TimeText.form(of: "at", kind: .timestamptz, digits: 6)
        let plan = try await fixture.plan(
            "SELECT id FROM events WHERE (\(form)) COLLATE \"C\" < '2026' "
                + "ORDER BY (\(form)) COLLATE \"C\" DESC, id DESC LIMIT 5"
        )
        #expect(plan.contains("Index") && plan.contains("dm_"), "\(plan)")
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
            ImportRecord(
                line: 4,
                fields: ["id": .integer(4), "at": .string("2026-11-20"), "day": .string("0044-03-15 BC")]
            ),
        ]
        let summary = try await importer.run(records, skipBad: true, batch: 10)
        #expect(summary.imported == 2 && summary.rejections.map(\.line) == [2, 4], "\(summary.rejections)")
        #expect(summary.rejections.first?.reason.hasPrefix("field 'at': ") == true, "\(summary.rejections)")
        #expect(
            summary.rejections.last?.reason.hasPrefix("field 'day': ") == true,
            "\(summary.rejections.last?.reason ?? "")"
        )
        let adapter = try await Self.adapter(over: fixture)
        let page = try await adapter.page(view: "by_at", limit: "5", cursor: nil)
        #expect(
            page.items.map { Self.field("at", of: $0) } == [
                .string("2026-11-20T00:00:00.000000Z"), .string("2026-11-19T21:04:00.000000Z"),
            ]
        )
    }
}

extension PostgresTimeColumnTests {
    /// An import's record with several values their columns' casts refuse names each, as
    /// a write does (it named the one PostgreSQL stopped at), skipped or stopping the import.
    @Test func anImportNamesEveryRefusedTimeOfARecord() async throws {
        let fixture = try await Self.table()
        let provider = try await fixture.store.provider(for: Self.definition, source: Self.source)
        let importer = try SQLImporter(reader: provider.reader, list: Self.definition, source: Self.source)
        let bad: [String: JSONValue] = [
            "id": .integer(2), "at": .string("not a time"), "day": .string("0044-03-15 BC"),
            "opens": .string("25:61"), "title": .string("t"),
        ]
        let records = [ImportRecord(line: 1, fields: ["id": .integer(1)]), ImportRecord(line: 2, fields: bad)]
        let summary = try await importer.run(records, skipBad: true, batch: 10)
        #expect(summary.imported == 1 && summary.rejections.map(\.line) == [2], "\(summary.rejections)")
        let stopped = await #expect(throws: ImportStopped.self) {
            _ = try await importer.run([ImportRecord(line: 7, fields: bad)], skipBad: false)
        }
        for reason in [summary.rejections.first?.reason, stopped?.rejection.reason] {
            let named = ["at", "day", "opens"].filter { reason?.contains("field '\($0)': ") == true }
            #expect(named == ["at", "day", "opens"], "\(reason ?? "")")
        }
    }
}

extension PostgresTimeColumnTests {
    /// A list over a query reads its time columns as a table list does, with the fractional
    /// digits its columns keep (a temporary view of the query tells them), in order.
    @Test func aQueryListReadsItsTimes() async throws {
        let fixture = try await Self.table()
        try await fixture.store.primary.query(
            """
            INSERT INTO events (title, at, local) VALUES ('a', '2026-11-19 10:00+00', '2026-11-19 08:00'),
                ('b', '2026-11-18 10:00+00', NULL), ('c', 'infinity', '2026-01-01 00:00')
            """
        )
        let definition = ListDefinition(
            name: "recent",
            title: "Recent",
            idField: "id",
            views: [
                View(
                    name: "by_at",
                    isDefault: true,
                    sort: [SortKey("at", .descending), SortKey("id")],
                    idField: "id",
                    cellType: .fixed("event"),
                    fields: ["at", "local", "day"]
                )
            ]
        )
        let source = StoreSource(
            kind: .query("SELECT id, at, local, CAST(at AS date) AS day FROM events"),
            fieldTypes: ["id": .integer, "at": .string, "local": .string, "day": .string],
            versionTables: ["events"]
        )
        let adapter = try await fixture.store.adapter(
            for: definition,
            source: source,
            signer: CursorSigner(secret: SampleList.secret)
        )
        let page = try await adapter.page(view: nil, limit: "2", cursor: nil)
        #expect(
            page.items.map(\.data) == [
                .object([
                    "at": .string("infinity"), "local": .string("2026-01-01T00:00:00"),
                    "day": .string("infinity"),
                ]),
                .object([
                    "at": .string("2026-11-19T10:00:00.000000Z"), "local": .string("2026-11-19T08:00:00"),
                    "day": .string("2026-11-19"),
                ]),
            ]
        )
        let next = try await adapter.page(view: nil, limit: "2", cursor: page.next)
        #expect(next.items.map { Self.field("at", of: $0) } == [.string("2026-11-18T10:00:00.000000Z")])
    }
}
