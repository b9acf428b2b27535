import HTTPTypes

/// The `WWW-Authenticate: Bearer` challenges of a `401` (RFC 6750 3), in one place so that
/// every refusal of a token says why in the same words as its problem's `detail`.
enum BearerChallenge {
    /// The challenge to a request that sent no Bearer credentials: no `error` (RFC 6750 3.1).
    static let credentialsMissing: HTTPFields = [.wwwAuthenticate: #"Bearer realm="data-mediator""#]

    /// The challenge to a request whose token does not do: `error="invalid_token"`, with
    /// `detail` as its `error_description`.
    static func invalidToken(_ detail: String) -> HTTPFields {
        // RFC 6750 3 allows only printable ASCII without '"' and '\' in error_description.
        let description = String(
            String.UnicodeScalarView(
                detail.unicodeScalars.map { scalar in
                    (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\" ? scalar : " "
                }
            )
        )
        let challenge = #"Bearer realm="data-mediator", error="invalid_token", error_description="\#(description)""#
        return [.wwwAuthenticate: challenge]
    }
}
