extension RawClient {
    /// The head of a raw JSON write of an item to the demo's `transactions` list, with the
    /// write token `token`: its request line, `Host`, `Authorization`, `fields` (each
    /// ending in CRLF), `Content-Type: application/json`, a `Content-Length` of `length`
    /// when given (a chunked body names `Transfer-Encoding` in `fields` instead), and the
    /// blank line. Tests of what a server does with a body send it, or part of it, after.
    public static func transactionWrite(length: Int?, fields: String = "", token: String = "t") -> String {
        "POST /lists/transactions/items HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
            + fields + "Content-Type: application/json\r\n"
            + (length.map { "Content-Length: \($0)\r\n" } ?? "") + "\r\n"
    }
}
