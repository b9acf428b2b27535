import Hummingbird

// The ceiling for the page benchmark: the HTTP framework answering a fixed JSON body of
// the size of a real page from memory, with nothing else to do. Not part of the product.
//
// Usage: data-mediator-ceiling PORT BYTES
let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8081 : 8081
let size = arguments.count > 2 ? Int(arguments[2]) ?? 2048 : 2048
var body = #"{"padding":""#
body += String(repeating: "x", count: max(0, size - body.utf8.count - 2))
body += #""}"#
let bytes = ByteBuffer(string: body)

let router = Router()
router.get("/page") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: bytes))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
