import DataMediator
import NIOCore
import Synchronization

/// The last `/sections` answer of each view (and slice), encoded, with its entity tag: a
/// view of thousands of sections answers the same bytes until its counts or version move,
/// so each request neither encodes nor hashes them again, and concurrent answers share
/// one buffer instead of holding a copy each.
final class SectionAnswers: Sendable {
    private struct Answer: Sendable {
        let info: SectionInfo
        let body: ByteBuffer
        let tag: String
    }

    private let answers = Mutex<[String: Answer]>([:])
    /// The most views and slices remembered; past it, the slices' answers are forgotten
    /// (the views' too if they alone fill it).
    static let capacity = 64

    /// The encoded answer of `info` for `key` (its list and view binding), and its tag.
    func answer(for key: String, _ info: SectionInfo) -> (body: ByteBuffer, tag: String) {
        if let kept = answers.withLock({ $0[key] }), kept.info == info { return (kept.body, kept.tag) }
        let bytes = info.json()
        let answer = Answer(info: info, body: ByteBuffer(bytes: bytes), tag: JSONResponse.entityTag(of: bytes))
        answers.withLock { answers in
            // Slices' answers (keys with `#`, as many as clients make up) go first: a view's
            // own stays.
            if answers.count >= Self.capacity, answers[key] == nil {
                answers = answers.filter { !$0.key.contains("#") }
                if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            }
            answers[key] = answer
        }
        return (answer.body, answer.tag)
    }
}
