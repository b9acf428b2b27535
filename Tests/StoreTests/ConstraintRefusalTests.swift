import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Testing

/// A write the table's own constraints refuse is the client's to mend, not the service's
/// fault: a value another item holds under a unique index is `conflict` (409), any other
/// constraint `invalidItem` (422), and nothing of the write is stored (both were 500).
@Suite struct ConstraintRefusalTests {
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aConstraintOfTheTableRefusesAWriteAsTheClients(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        try await subject.writeBehindTheServicesBack("CREATE UNIQUE INDEX notes_title ON notes (title)")
        // SQLite adds no CHECK to a table that exists; a trigger that aborts is its constraint.
        try await subject.writeBehindTheServicesBack(
            kind == .postgres
                ? "ALTER TABLE notes ADD CONSTRAINT notes_score CHECK (score >= 0)"
                : "CREATE TRIGGER notes_score BEFORE INSERT ON notes WHEN NEW.score < 0 "
                    + "BEGIN SELECT RAISE(ABORT, 'notes_score'); END"
        )
        let adapter = subject.adapter
        func data(_ title: String, score: Int64 = 1) -> JSONValue {
            .object(["title": .string(title), "score": .integer(score), "created": .string("2026-01-01")])
        }
        _ = try await adapter.create(body: .object(["id": .string("a"), "data": data("same")]), scope: nil)
        _ = try await adapter.create(body: .object(["id": .string("b"), "data": data("other")]), scope: nil)
        let version = try await adapter.currentVersion()

        await #expect {
            try await adapter.create(body: .object(["id": .string("c"), "data": data("same")]), scope: nil)
        } throws: { ($0 as? DataMediatorError)?.code == .conflict }
        await #expect {
            try await adapter.patch(id: "b", body: .object(["data": .object(["title": .string("same")])]), scope: nil)
        } throws: { ($0 as? DataMediatorError)?.code == .conflict }
        await #expect {
            try await adapter.replace(id: "b", body: .object(["data": data("same")]), scope: nil)
        } throws: { ($0 as? DataMediatorError)?.code == .conflict }
        // Through a scope, another unique value's conflict is not told as the id's (it said
        // "The id '' is taken" for a create without one: review 98 #2); a taken id is.
        let scope = WriteScope(field: "created", value: .string("2026-01-01"))
        for body: JSONValue in [.object(["data": data("same")]), .object(["id": .string("c"), "data": data("same")])] {
            await #expect {
                try await adapter.create(body: body, scope: scope)
            } throws: { error in
                guard let error = error as? DataMediatorError else { return false }
                return error.code == .conflict && error.message.hasPrefix("Another item holds a value")
                    && !error.isIDTaken
            }
        }
        await #expect {
            try await adapter.create(body: .object(["id": .string("a"), "data": data("fresh")]), scope: scope)
        } throws: { error in
            guard let error = error as? DataMediatorError else { return false }
            return error.isIDTaken && error.message.hasPrefix("The id 'a' is taken")
                && error.fieldProblems == [FieldProblem(field: "id", detail: "is taken")]
        }
        await #expect {
            try await adapter.create(body: .object(["id": .string("d"), "data": data("new", score: -1)]), scope: nil)
        } throws: { error in
            guard let error = error as? DataMediatorError else { return false }
            // A check names no column: `errors` names the item's fields as a whole.
            return error.code == .invalidItem && error.message.contains("notes_score")
                && error.fieldProblems.map(\.field) == ["data"]
        }

        // Nothing of the refused writes is stored, and the store goes on taking writes.
        #expect(try await adapter.currentVersion() == version)
        let page = try await adapter.page(view: "flat", limit: "50", cursor: nil)
        let titles = page.sections.flatMap(\.items).compactMap { cell -> String? in
            guard case .object(let fields) = cell.data, case .string(let title)? = fields["title"] else { return nil }
            return "\(cell.id):\(title)"
        }
        #expect(titles.sorted() == ["a:same", "b:other"])
        _ = try await adapter.create(body: .object(["id": .string("e"), "data": data("fresh")]), scope: nil)
        #expect(try await adapter.currentVersion() == version + 1)
    }
}

extension ConstraintRefusalTests {
    /// A constraint of the service's own tables that refuses a write (here an index added
    /// behind its back to the change log) is the service's fault: not answered as the
    /// item's `conflict` or `invalidItem`, and nothing of the write is stored.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aConstraintOfTheServicesOwnTablesIsNotTheItems(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        try await subject.writeBehindTheServicesBack(
            "CREATE UNIQUE INDEX one_change_an_item ON data_mediator_changes (list, view, item_id)"
        )
        let adapter = subject.adapter
        let data: JSONValue = .object(["title": .string("t"), "score": .integer(1), "created": .string("2026-01-01")])
        _ = try await adapter.create(body: .object(["id": .string("a"), "data": data]), scope: nil)
        let version = try await adapter.currentVersion()
        await #expect {
            try await adapter.patch(id: "a", body: .object(["data": .object(["score": .integer(2)])]), scope: nil)
        } throws: { error in
            guard let refusal = error as? DataMediatorError else { return true }
            return refusal.code != .conflict && refusal.code != .invalidItem
        }
        #expect(try await adapter.currentVersion() == version)
    }
}

extension ConstraintRefusalTests {
    /// An imported record that a unique index other than the id's refuses is told as that
    /// index's refusal, not as an id that exists (the insert's `ON CONFLICT DO NOTHING`
    /// skips a row any unique index refuses, and every skipped row was told so), in one
    /// statement of many records (PostgreSQL) as alone (SQLite).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anImportedRecordAnotherUniqueIndexRefusesIsToldSo(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        try await subject.writeBehindTheServicesBack("CREATE UNIQUE INDEX notes_title ON notes (title)")
        _ = try await subject.adapter.create(
            body: .object(["id": .string("a"), "data": .object(["title": .string("same"), "score": .integer(1)])]),
            scope: nil
        )
        func record(_ line: Int, _ id: String, _ title: String) -> ImportRecord {
            ImportRecord(
                line: line,
                fields: ["id": .string(id), "title": .string(title), "score": .integer(1), "group": .string("g")]
            )
        }
        let summary = try await subject.importer().run(
            [record(1, "b", "fresh"), record(2, "c", "same"), record(3, "a", "again"), record(4, "d", "new")],
            skipBad: true,
            batch: 10
        )
        #expect(summary.imported == 2, "\(summary.rejections)")
        #expect(summary.rejections.map(\.line) == [2, 3], "\(summary.rejections)")
        #expect(summary.rejections.first?.reason.contains("keeps unique") == true, "\(summary.rejections)")
        #expect(summary.rejections.last?.reason.contains("exists already") == true, "\(summary.rejections)")
    }
}

extension ConstraintRefusalTests {
    /// A write a trigger of the table ignores (SQLite's `RAISE(IGNORE)`, a PostgreSQL
    /// `BEFORE` trigger that returns NULL) is `conflict`, with nothing logged: a delete was
    /// answered as done (and logged) with the row still there, a patch `unavailable` (a
    /// client retried it for ever).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aWriteATriggerIgnoresIsAConflict(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        if kind == .postgres {
            try await subject.writeBehindTheServicesBack(
                """
                CREATE FUNCTION notes_keep() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF OLD.title = 'keep' THEN RETURN NULL; END IF;
                IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; RETURN NEW; END $$
                """
            )
            try await subject.writeBehindTheServicesBack(
                "CREATE TRIGGER notes_keep BEFORE UPDATE OR DELETE ON notes FOR EACH ROW EXECUTE FUNCTION notes_keep()"
            )
        } else {
            for operation in ["UPDATE", "DELETE"] {
                try await subject.writeBehindTheServicesBack(
                    "CREATE TRIGGER notes_keep_\(operation) BEFORE \(operation) ON notes "
                        + "WHEN old.title = 'keep' BEGIN SELECT RAISE(IGNORE); END"
                )
            }
        }
        let adapter = subject.adapter
        _ = try await adapter.create(body: .object(["id": .string("k"), "data": .object(["title": .string("keep")])]))
        let version = try await adapter.currentVersion()
        for write in ["patch", "delete"] {
            await #expect {
                if write == "patch" {
                    _ = try await adapter.patch(id: "k", body: .object(["data": .object(["score": .integer(2)])]))
                } else {
                    _ = try await adapter.delete(id: "k")
                }
            } throws: { ($0 as? DataMediatorError)?.code == .conflict }
        }
        #expect(try await adapter.currentVersion() == version, "nothing logged")
        #expect(try await adapter.locate(id: "k", view: nil).item.id == "k")
    }
}
