import Crypto
import DataMediatorTesting
import Testing

@testable import DataMediator

/// A token tells nothing of its slice's values to someone without the secret: it carries
/// the slice's digest keyed by the secret, where the plain digest (a hash of the values)
/// would give a user's id away to anyone who tries likely ones.
@Suite struct CursorSliceTests {
    let signer = CursorSigner(secret: SampleList.secret)
    let view = SampleList.views[0]

    func cursor(in view: View) -> Cursor {
        Cursor(
            list: SampleList.name,
            view: view.cursorBinding,
            position: Position([.string("a"), .null, .string("x")]),
            inclusive: false
        )
    }

    /// The payload of `token`, as text.
    func payload(of token: String) throws -> String {
        let payload = try #require(Base64URL.decode(token.prefix { $0 != "." }))
        return String(decoding: payload, as: UTF8.self)
    }

    @Test func aTokenCarriesItsSlicesDigestKeyed() throws {
        let ana = view.sliced(["group": .string("ana")])
        let token = signer.sign(cursor(in: ana))
        let text = try payload(of: token)
        #expect(text.contains(view.name + "#"), "\(text)")
        #expect(!text.contains(Slice.digest(of: ["group": .string("ana")])), "\(text)")
        // Another secret keys it otherwise.
        let other = CursorSigner(secret: Array("another-secret-of-enough-length".utf8))
        #expect(try payload(of: other.sign(cursor(in: ana))) != text)
        // It is taken for its slice, as before, and refused for another.
        let verified = try signer.verify(token, list: SampleList.name, view: ana)
        #expect(verified == cursor(in: ana))
        let bo = view.sliced(["group": .string("bo")])
        let refused = #expect(throws: DataMediatorError.self) {
            try signer.verify(token, list: SampleList.name, view: bo)
        }
        #expect(refused?.code == .cursorMismatch)
        // Another slice of the view, or the whole view (an operator's token), is named as
        // such, not as the same list and view.
        for other in [bo, view] {
            let refused = #expect(throws: DataMediatorError.self) {
                try signer.verify(token, list: SampleList.name, view: other)
            }
            #expect(refused?.message.contains("another slice of list") == true, "\(String(describing: refused))")
        }
        // A view without a slice is carried as it is.
        #expect(try payload(of: signer.sign(cursor(in: view))).contains(view.cursorBinding))
    }

    /// A token of an earlier release, which carried the plain digest, is still taken.
    @Test func anEarlierReleasesTokenIsTaken() throws {
        let ana = view.sliced(["group": .string("ana")])
        let payload = CursorPayload.encode(cursor(in: ana))
        let mac = HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(data: SampleList.secret))
        var token: [UInt8] = []
        payload.withUnsafeBytes { Base64URL.append($0, to: &token) }
        token.append(UInt8(ascii: "."))
        mac.withUnsafeBytes { Base64URL.append($0, to: &token) }
        let verified = try signer.verify(String(decoding: token, as: UTF8.self), list: SampleList.name, view: ana)
        #expect(verified == cursor(in: ana))
    }

    /// A cursor past a row whose sort key is longer than writes allow (another program
    /// wrote it) carries the key abridged: short, taken back, its key's first bytes and
    /// digest kept (probe 40: the token was longer than any taken back, and the walk stopped).
    @Test func aLongKeyIsCarriedAbridged() throws {
        let key = String(repeating: "a", count: 20_000)
        let long = Cursor(
            list: SampleList.name,
            view: view.cursorBinding,
            position: Position([.string(key), .null, .string("x")]),
            inclusive: false
        )
        let token = signer.sign(long)
        #expect(token.utf8.count < 500, "\(token.utf8.count)")
        let verified = try signer.verify(token, list: SampleList.name, view: view)
        #expect(
            verified.position.values == [.string(String(key.prefix(AbridgedKey.maximumBytes))), .null, .string("x")]
        )
        #expect(verified.abridged.keys.sorted() == [0])
        // Another key with the same first bytes is told apart by its digest.
        let other = Cursor(
            list: SampleList.name,
            view: view.cursorBinding,
            position: Position([.string(key + "b"), .null, .string("x")]),
            inclusive: false
        )
        let otherVerified = try signer.verify(signer.sign(other), list: SampleList.name, view: view)
        #expect(otherVerified.position == verified.position && otherVerified.abridged != verified.abridged)
    }

    /// A token longer than the server takes back (not one of its cursors) is refused saying why.
    @Test func anOverlongTokenIsRefusedSayingWhy() {
        let token = String(repeating: "a", count: CursorSigner.maximumTokenLength + 1)
        let refused = #expect(throws: DataMediatorError.self) {
            try signer.verify(token, list: SampleList.name, view: view)
        }
        #expect(refused?.code == .badCursor)
        #expect(
            refused?.message.contains("more than the 12288 this server takes") == true,
            "\(String(describing: refused))"
        )
    }
}
