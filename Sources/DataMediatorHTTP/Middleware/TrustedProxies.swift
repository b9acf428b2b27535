import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reverse proxies and load balancers whose `X-Forwarded-For` names the client a
/// request comes from (`DATA_MEDIATOR_TRUSTED_PROXIES`).
///
/// Behind a proxy every request comes from the proxy's address, so every client without
/// a credential would be one client to the per-client shares and rates (``ClientIdentity``):
/// one user could take the event streams of all. A request from a trusted address is the
/// client's that its `X-Forwarded-For` names: the last address of that list that is not
/// itself a trusted proxy, read from the right, as each proxy appends the address it was
/// reached from; what a client wrote into the header itself, further left, is never taken.
/// A request from any other address is that address's, whatever it says.
public struct TrustedProxies: Sendable, Hashable {
    /// An address or a range of them: its first bytes (4 for IPv4, 16 for IPv6) and how
    /// many of its leading bits must match.
    struct Range: Sendable, Hashable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefix
            for (mine, theirs) in zip(bytes, address) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if mine & mask != theirs & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    /// A trusted proxy written in a way no address or range is.
    public struct Problem: Error, CustomStringConvertible {
        /// What was written.
        public let value: String
        /// What is wrong, with the fix.
        public var description: String {
            "'\(value)' is no IP address or range: give addresses (10.0.0.7, fd00::1) or ranges (10.0.0.0/8, "
                + "fd00::/8), comma-separated"
        }
    }

    let ranges: [Range]

    /// No proxy is trusted: every request is its connection's address's.
    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// The proxies of `values`: each an IPv4 or IPv6 address, or a range in CIDR form
    /// (`10.0.0.0/8`, `fd00::/8`; an IPv4 range written in IPv6, `::ffff:10.0.0.0/104`,
    /// counts its bits as IPv6 does), the prefix's length in plain digits.
    ///
    /// - Throws: ``Problem`` naming the first value that is neither.
    public init(_ values: [String]) throws {
        ranges = try values.map { value in
            let parts = value.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.bytes(of: String(parts[0])) else { throw Problem(value: value) }
            guard parts.count == 2 else { return Range(bytes: bytes, prefix: bytes.count * 8) }
            // Digits alone, without a leading zero: `-0` and `+8` are no lengths, and `08`
            // is no spelling of one.
            let digits = parts[1]
            let mapped = bytes.count == 4 && parts[0].contains(":") ? 96 : 0
            guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }),
                digits == "0" || digits.first != "0",
                let written = Int(digits), (mapped...mapped + bytes.count * 8).contains(written)
            else { throw Problem(value: value) }
            return Range(bytes: bytes, prefix: written - mapped)
        }
    }

    /// Whether any proxy is trusted.
    public var isEmpty: Bool { ranges.isEmpty }

    /// The address a request from `peer` (its connection's) with `headers` comes from, in
    /// its usual text (an IPv4 address mapped into IPv6 as IPv4): `peer` as it is when no
    /// proxy is trusted; its own unless it is a trusted proxy; else the last address of the
    /// `X-Forwarded-For` fields (all of them, in order) that is no trusted proxy, or the
    /// last one that was when an entry before it is not an address (what a trusted proxy
    /// appended is taken, never what it passed on).
    public func client(peer: String, headers: HTTPFields) -> String {
        guard !ranges.isEmpty, var current = Self.bytes(of: peer) else { return peer }
        guard isTrusted(current) else { return Self.text(of: current) }
        let forwarded = headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }
        for entry in forwarded.reversed() {
            guard let address = Self.bytes(of: Self.withoutPort(entry.trimmingCharacters(in: .whitespaces))) else {
                break
            }
            current = address
            if !isTrusted(address) { break }
        }
        return Self.text(of: current)
    }

    /// `X-Forwarded-For`.
    static let forwardedFor = HTTPField.Name.known("X-Forwarded-For")

    private func isTrusted(_ address: [UInt8]) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// An entry of `X-Forwarded-For` without the port some proxies add (`203.0.113.7:4711`,
    /// `[2001:db8::1]:4711`) and an IPv6 address's brackets.
    static func withoutPort(_ entry: String) -> String {
        if entry.hasPrefix("["), let end = entry.firstIndex(of: "]") {
            return String(entry[entry.index(after: entry.startIndex)..<end])
        }
        if entry.count(where: { $0 == ":" }) == 1, let colon = entry.firstIndex(of: ":") {
            return String(entry[..<colon])
        }
        return entry
    }

    /// The bytes of an IPv4 or IPv6 address written in its usual text (4 or 16; an IPv4
    /// address mapped into IPv6, `::ffff:10.0.0.7`, as its 4); nil for anything else. By
    /// `inet_pton`, the C library's reader of addresses: the forms it takes are the
    /// standard ones, and a hand-written reader would take others.
    static func bytes(of text: String) -> [UInt8]? {
        // Plain byte buffers rather than `in_addr`/`in6_addr`: the C types' Swift home
        // is whichever C module declared them first, which a fresh build may name as
        // SwiftNIO's (`CNIOLinux`) and then refuse without its import.
        var v4 = [UInt8](repeating: 0, count: 4)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 {
            return v4
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard bytes.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 else { return nil }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return Array(bytes.suffix(4))
        }
        return bytes
    }

    /// The usual text of an address's bytes (`inet_ntop`).
    static func text(of bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let done = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard done != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
