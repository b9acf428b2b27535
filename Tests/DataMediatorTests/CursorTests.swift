import DataMediator
import DataMediatorTesting
import Foundation
import Testing

/// Cursors: signed, URL-safe, bound to their list and view, and holding a position that
/// stays right when items are added or removed before it.
@Suite struct CursorTests {
    let signer = CursorSigner(secret: SampleList.secret)
    let view = SampleList.views[0]

    func adapter(_ items: [Item], secret: [UInt8] = SampleList.secret) -> ListAdapter {
        ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(items: items, idField: "id", views: SampleList.views),
            signer: CursorSigner(secret: secret)
        )
    }

    /// A cursor in the sample view, after a position with a `null` key; `view` is what it
    /// binds to (the view's cursor binding unless given).
    func sampleCursor(view binding: String? = nil) -> Cursor {
        Cursor(
            list: SampleList.name,
            view: binding ?? view.cursorBinding,
            position: Position([.string("a"), .null, .string("x")]),
            inclusive: false
        )
    }

    func code(of token: String, list: String = SampleList.name, view: View? = nil) -> DataMediatorError.Code? {
        do {
            _ = try signer.verify(token, list: list, view: view ?? self.view)
            return nil
        } catch {
            return error.code
        }
    }

    /// A view sorted by one field of each kind of value, and a cursor in it holding each
    /// kind, inclusive.
    func everyKindOfValue(binding: String? = nil) -> (view: View, cursor: Cursor) {
        let values: [JSONValue] = [
            .null, .bool(true), .integer(-9_007_199_254_740_993), .number(0.1), .string("a.b/c é \"q\""),
        ]
        let wide = View(
            name: "wide",
            sort: values.indices.map { SortKey("f\($0)") },
            idField: "id",
            cellType: .fixed("x"),
            fields: []
        )
        let cursor = Cursor(
            list: "l",
            view: binding ?? wide.cursorBinding,
            position: Position(values + [.string("id-1")]),
            inclusive: true
        )
        return (wide, cursor)
    }

    @Test func aSignedCursorRoundTripsWithEveryKindOfValue() throws {
        let (wide, cursor) = everyKindOfValue()
        let token = signer.sign(cursor)
        #expect(token.allSatisfy { $0.isLetter && $0.isASCII || $0.isNumber || "-_.".contains($0) })
        #expect(try signer.verify(token, list: "l", view: wide) == cursor)
    }

    /// Tokens are part of what a service promises across restarts, upgrades and replicas:
    /// these were computed apart from this code (Python's `hmac` and `base64` over the
    /// payload layout `CursorPayload` documents), so any change to the payload, the base64
    /// or the MAC shows here.
    /// A cursor carries its position's sort keys; a key of a few KB (twice, in a view
    /// sectioned by it) still makes a cursor the server takes back.
    @Test func aLongSortKeyIsPagedPast() async throws {
        let long = String(repeating: "x", count: 4_000)
        let items = SampleList.items(count: 6).enumerated().map { index, item in
            var item = item
            item["group"] = .string(long + String(index % 2))
            return item
        }
        var check = try await SampleList.walk(adapter(items), view: "by_group", limit: 1)
        check.expectOrder(SampleList.expectedOrder(items, view: view).map { $0["id"].idString })
        #expect(check.violations == [])
    }

    @Test func tokensAreTheDocumentedBytes() throws {
        let sample = sampleCursor(view: view.name)
        let sampleToken = "AQAGc2FtcGxlCGJ5X2dyb3VwAwUBYQAFAXg.GKrWpPcZCNVbxzXTE44QSIly5Nf9c0DGs-7pzAUMycg"
        #expect(signer.sign(sample) == sampleToken)
        // A token that binds the view's name alone (as before cursors bound the view's
        // definition) is genuine, and refused as one of another definition.
        let earlier = #expect(throws: DataMediatorError.self) {
            _ = try signer.verify(sampleToken, list: SampleList.name, view: view)
        }
        #expect(earlier?.code == .cursorMismatch)
        #expect(earlier?.message.contains("another definition") == true)

        let (_, every) = everyKindOfValue(binding: "wide")
        let everyToken =
            "AQEBbAR3aWRlBgACA4GAgICAgIAgBJqz5syZs-bcPwUMYS5iL2Mgw6kgInEiBQRpZC0x"
            + ".XkTG7HHyh67GkGvFlVtwGmxC0wPBPR3J3NETfiyE330"
        #expect(signer.sign(every) == everyToken)
    }

    @Test func aCursorOfAnEarlierDefinitionOfTheViewIsRefused() throws {
        let token = signer.sign(sampleCursor())
        #expect(code(of: token) == nil)
        let base = SampleList.views[0]
        let changes = [
            View(
                name: base.name,
                sort: base.sort.reversed(),
                idField: "id",
                section: base.section,
                cellType: base.cellType,
                fields: base.fields
            ),
            View(name: base.name, sort: base.sort, idField: "id", cellType: base.cellType, fields: base.fields),
            View(
                name: base.name,
                sort: base.sort,
                idField: "id",
                section: base.section,
                filter: [FilterCondition(field: "score", op: .gt, value: .integer(0))],
                cellType: base.cellType,
                fields: base.fields
            ),
        ]
        for changed in changes {
            #expect(code(of: token, view: changed) == .cursorMismatch, "\(changed)")
        }
        // A sort key's type changed (review 99 #1: a cursor carrying a number for what is
        // text now was a `503` for ever on PostgreSQL, an empty page on SQLite).
        func typed(_ score: FieldType) -> View {
            View(
                name: base.name,
                sort: base.sort,
                idField: "id",
                section: base.section,
                cellType: base.cellType,
                fields: base.fields,
                fieldTypes: ["group": .string, "score": score, "id": .string, "title": .json]
            )
        }
        #expect(code(of: token, view: typed(.string)) == nil, "text keys leave the binding as it was")
        #expect(typed(.string).typedCursorBinding == typed(.string).cursorBinding)
        let integerToken = signer.sign(sampleCursor(view: typed(.integer).typedCursorBinding))
        #expect(code(of: integerToken, view: typed(.integer)) == nil)
        #expect(code(of: integerToken, view: typed(.number)) == .cursorMismatch)
        #expect(
            code(of: signer.sign(sampleCursor(view: typed(.number).typedCursorBinding)), view: typed(.integer)) != nil
        )
        // A cursor of a release before the types were bound is taken (an upgrade ended
        // every cursor of a view with a number key or an integer id: probe 86 #2), sliced
        // views' too; what a view's shape is known by (the change log's keys, a composite's
        // shape) is as before (review 102: the history of such views, and every composite
        // cursor, ended at the upgrade).
        #expect(code(of: token, view: typed(.integer)) == nil)
        #expect(typed(.integer).cursorBinding == base.cursorBinding)
        let sliced = typed(.integer).sliced(["group": .string("a")])
        #expect(code(of: signer.sign(sampleCursor(view: sliced.cursorBinding)), view: sliced) == nil)
        let other = typed(.integer).sliced(["group": .string("b")])
        #expect(code(of: signer.sign(sampleCursor(view: sliced.cursorBinding)), view: other) == .cursorMismatch)
        #expect(code(of: signer.sign(sampleCursor(view: sliced.typedCursorBinding)), view: other) == .cursorMismatch)
        func composite(over child: View) throws -> View {
            try ListAdapter.composite(
                name: "screen",
                title: "Screen",
                children: [CompositeChild(name: "c", content: .list(CompositeTests.sample, view: child))],
                signer: signer
            ).definition.view(named: nil)
        }
        #expect(try composite(over: typed(.integer)).cursorBinding == composite(over: base).cursorBinding)
        // A composite cursor from before a child's key changed type is refused as the
        // child's own is (review 103: it was taken, and its old value read).
        let screen = try composite(over: typed(.integer))
        let beforeRetype = signer.sign(
            Cursor(list: "screen", view: screen.typedCursorBinding, position: Position([.integer(1)]), inclusive: false)
        )
        #expect(try signer.verify(beforeRetype, list: "screen", view: screen).position == Position([.integer(1)]))
        #expect(throws: DataMediatorError.self) {
            try signer.verify(beforeRetype, list: "screen", view: try composite(over: typed(.number)))
        }
        // Fields shown and cell types do not place items: the cursor still fits.
        let reshown = View(
            name: base.name,
            sort: base.sort,
            idField: "id",
            section: base.section,
            cellType: .fixed("other"),
            fields: ["title"]
        )
        #expect(code(of: token, view: reshown) == nil)
    }

    @Test func everyChangedCharacterIsRefused() throws {
        let token = signer.sign(
            sampleCursor()
        )
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        var characters = Array(token)
        for index in characters.indices {
            let original = characters[index]
            for replacement in alphabet.prefix(8) + alphabet.suffix(4) where replacement != original {
                characters[index] = replacement
                #expect(code(of: String(characters)) == .badCursor, "changed at \(index)")
            }
            characters[index] = original
        }
    }

    @Test func truncatedEmptyOrExtendedCursorsAreRefused() throws {
        let token = signer.sign(
            sampleCursor()
        )
        for length in [0, 1, token.count / 2, token.count - 1] {
            #expect(code(of: String(token.prefix(length))) == .badCursor)
        }
        for bad in [
            token + "A", token + ".", "." + token, token.replacingOccurrences(of: ".", with: ""), "%%%", "not a cursor",
            String(repeating: "A", count: 10_000),
            // Non-ASCII around the dot, and a dot that a combining mark makes part of a character.
            token.replacingOccurrences(of: ".", with: "é."), token.replacingOccurrences(of: ".", with: ".\u{301}"),
            "é", "😀.😀",
        ] {
            #expect(code(of: bad) == .badCursor)
        }
    }

    @Test func aForgedCursorIsRefused() throws {
        let cursor = sampleCursor()
        let forged = CursorSigner(secret: Array("another-secret-entirely".utf8)).sign(cursor)
        #expect(code(of: forged) == .badCursor)
        // A payload someone wrote by hand, with a signature taken from a genuine cursor.
        let genuine = signer.sign(cursor)
        let payload = Data(#"{"l":"sample","v":"by_group","p":["sz","n","s0"],"i":false,"s":null}"#.utf8)
            .base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(
                of: "/",
                with: "_"
            )
        let signature = genuine.split(separator: ".")[1]
        #expect(code(of: payload + "." + signature) == .badCursor)
    }

    @Test func aCursorOfAnotherListOrViewIsAMismatch() throws {
        let token = signer.sign(
            sampleCursor()
        )
        #expect(code(of: token, list: "other") == .cursorMismatch)
        #expect(code(of: token, view: SampleList.views[1]) == .cursorMismatch)
    }

    @Test func aCursorWhoseShapeNoLongerFitsTheViewIsRefused() throws {
        let token = signer.sign(
            Cursor(
                list: SampleList.name,
                view: view.cursorBinding,
                position: Position([.string("a")]),
                inclusive: false
            )
        )
        #expect(code(of: token) == .badCursor)
        // No stored key holds U+0000: PostgreSQL refused the statement (a `500`; review 99 #6).
        let nul = signer.sign(
            Cursor(
                list: SampleList.name,
                view: view.cursorBinding,
                position: Position([.string("a\u{0}b"), .null, .string("x")]),
                inclusive: false
            )
        )
        #expect(code(of: nul) == .badCursor)
    }

    /// A rotation: the former secret's tokens are still taken (a sliced view's too, whose
    /// slice digest that secret keyed), new ones are signed with the new secret only.
    @Test func aFormerSecretsTokensAreTakenDuringARotation() throws {
        let former = Array("the-former-secret-0123".utf8)
        let rotated = CursorSigner(secret: Array("the-new-secret-456789".utf8), previous: [former])
        let sliced = try SampleList.definition.view(named: "by_day", slice: SliceRequest(parameters: ["kind": ["a"]]))
        for target in [view, sliced] {
            let cursor = Cursor(
                list: SampleList.name,
                view: target.cursorBinding,
                position: Position(Array(repeating: .string("a"), count: target.sort.count)),
                inclusive: false
            )
            let old = CursorSigner(secret: former).sign(cursor)
            #expect(try rotated.verify(old, list: SampleList.name, view: target) == cursor, "\(target.name)")
            #expect(throws: DataMediatorError.self) {
                try CursorSigner(secret: Array("the-new-secret-456789".utf8)).verify(
                    old,
                    list: SampleList.name,
                    view: target
                )
            }
            let fresh = rotated.sign(cursor)
            #expect(fresh != old)
            #expect(throws: DataMediatorError.self) {
                try CursorSigner(secret: former).verify(fresh, list: SampleList.name, view: target)
            }
        }
    }

    @Test func cursorsWorkAcrossAdaptersSharingTheSecret() async throws {
        let first = try await adapter(SampleList.items()).page(view: nil, limit: "4", cursor: nil)
        let second = try await adapter(SampleList.items()).page(view: nil, limit: "4", cursor: first.next)
        #expect(second.items.count == 4)
        await #expect(throws: DataMediatorError.self) {
            _ = try await adapter(SampleList.items(), secret: Array("a-different-secret!".utf8)).page(
                view: nil,
                limit: "4",
                cursor: first.next
            )
        }
    }

    @Test(
        "inserts and deletes before the position neither repeat nor skip an item",
        arguments: ["by_group", "by_day", "flat"]
    )
    func positionsSurviveChangesBeforeThem(view name: String) async throws {
        var items = SampleList.items()
        let original = SampleList.expectedOrder(items, view: try SampleList.definition.view(named: name)).map {
            $0["id"].idString
        }
        var served: [String] = []
        var cursor: String?
        var round = 0
        repeat {
            let page = try await adapter(items).page(view: name, limit: "4", cursor: cursor)
            served += page.items.map(\.id)
            cursor = page.next
            round += 1
            // Delete an item already served and insert one at the head of every view.
            if let gone = served.first, round % 2 == 0 { items.removeAll { $0["id"].idString == gone } }
            items.append(
                Item([
                    "id": .string("0new-\(round)"), "group": .string("aaa"), "score": .null,
                    "created": .string("2099-01-01T00:00:00Z"), "kind": .string("big"), "title": .string("new"),
                ])
            )
        } while cursor != nil
        #expect(served == original)
    }
}
