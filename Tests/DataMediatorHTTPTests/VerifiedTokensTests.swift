import DataMediator
import Foundation
import Testing

@testable import DataMediatorHTTP

/// A verified token is not verified again, but its time window is checked at every use;
/// the tokens kept are bounded.
@Suite struct VerifiedTokensTests {
    let keys: ClaimsTestKeys

    init() throws { keys = try ClaimsTestKeys.shared.get() }

    func verifier() async throws -> ClaimsVerifier {
        try await ClaimsVerifier(ClaimsConfiguration(secret: ClaimsTestKeys.secret, keySetFile: keys.keySetFile))
    }

    @Test func aKeptTokenStillExpiresAndAnEarlyOneIsNotKept() async throws {
        let verifier = try await verifier()
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let seconds = Int64(now.timeIntervalSince1970)
        let expiring = "Bearer " + (try await keys.es256(["sub": .string("ana"), "exp": .integer(seconds + 60)]))
        #expect(try await verifier.claims(fromAuthorization: expiring, at: now)["sub"] == .string("ana"))
        #expect(verifier.verifiedTokens.count == 1)
        #expect(try await verifier.claims(fromAuthorization: expiring, at: now + 50)["sub"] == .string("ana"))
        await #expect(throws: Problem.self) { try await verifier.claims(fromAuthorization: expiring, at: now + 120) }
        do {
            _ = try await verifier.claims(fromAuthorization: expiring, at: now + 120)
        } catch {
            #expect(error.detail.contains("expired"), "\(error.detail)")
        }
        let early = "Bearer " + (try await ClaimsTestKeys.hs256(["sub": .string("bo"), "nbf": .integer(seconds + 30)]))
        await #expect(throws: Problem.self) { try await verifier.claims(fromAuthorization: early, at: now) }
        #expect(verifier.verifiedTokens.count == 1, "a token refused was kept")
        #expect(try await verifier.claims(fromAuthorization: early, at: now + 40)["sub"] == .string("bo"))
        #expect(verifier.verifiedTokens.count == 2)
    }

    @Test func theTokensKeptAreBounded() async throws {
        let verifier = try await verifier()
        for index in 0..<(KeptTokens<TokenClaims>.capacity + 20) {
            let token = try await ClaimsTestKeys.hs256(["sub": .string("user-\(index)")])
            #expect(try await verifier.claims(fromAuthorization: "Bearer " + token)["sub"] == .string("user-\(index)"))
        }
        #expect(verifier.verifiedTokens.count == KeptTokens<TokenClaims>.capacity)
        // A token longer than the longest kept is verified, at every use, and not kept.
        let long = try await ClaimsTestKeys.hs256([
            "sub": .string("cy"), "pad": .string(String(repeating: "x", count: KeptTokens<TokenClaims>.longest)),
        ])
        let fresh = try await self.verifier()
        #expect(try await fresh.claims(fromAuthorization: "Bearer " + long)["sub"] == .string("cy"))
        #expect(fresh.verifiedTokens.count == 0)
    }

    /// What a token that was verified once may not skip: a changed spelling of it is a
    /// token of its own, verified (and refused) from the start.
    @Test func aKeptTokensOtherSpellingsAreVerifiedAfresh() async throws {
        let verifier = try await verifier()
        let token = try await keys.es256(["sub": .string("ana")])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + token)["sub"] == .string("ana"))
        let parts = token.split(separator: ".")
        for other in [parts[0] + "." + parts[1] + ".", token + "=", String(token.dropLast()) + "A"]
        where other != token {
            await #expect(throws: Problem.self, "\(other)") {
                try await verifier.claims(fromAuthorization: "Bearer " + other)
            }
        }
        #expect(verifier.verifiedTokens.count == 1)
    }

    /// A forged token is refused again as it was, without its signature checked again (a
    /// request looks at its token up to three times); its refusal keeps no accepted token
    /// out, and a refusal for its time window alone is not kept (the first test accepts an
    /// early token once its time came).
    @Test func aRefusedTokenIsRefusedAgainAsItWas() async throws {
        let verifier = try await verifier()
        let ana = try await keys.es256(["sub": .string("ana")]).split(separator: ".")
        let bo = try await keys.es256(["sub": .string("bo")]).split(separator: ".")
        let forged = "Bearer " + [ana[0], ana[1], bo[2]].joined(separator: ".")
        var details: [String] = []
        for _ in 0..<2 {
            do {
                _ = try await verifier.claims(fromAuthorization: forged)
                Issue.record("a forged token was accepted")
            } catch {
                details.append(error.detail)
            }
            #expect(verifier.refusedTokens.count == 1)
        }
        #expect(details.count == 2 && details[0] == details[1], "\(details)")
        #expect(details.first?.contains("signature") == true, "\(details)")
        #expect(verifier.verifiedTokens.count == 0)
        // What is answered the second time is what was kept, not a check made again.
        verifier.refusedTokens.keep(Problem(.unauthorized, detail: "kept"), of: String(forged.dropFirst(7)))
        await #expect(throws: Problem.self) { try await verifier.claims(fromAuthorization: forged) }
        do {
            _ = try await verifier.claims(fromAuthorization: forged)
        } catch {
            #expect(error.detail == "kept")
        }
    }
}
