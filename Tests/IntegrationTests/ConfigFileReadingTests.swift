import DataMediator
import Foundation
import Testing

@testable import data_mediator

/// Reading a config file from disk, and filter values checked against their field.
@Suite struct ConfigFileReadingTests {
    static let yaml = """
        store:
          sqlite: data.sqlite
        lists:
          tasks:
            title: Tasks
            table: tasks
            fields: {title: string, size: integer}
            views:
              small:
                sort: [size]
                filter:
                  - {field: size, op: lt, value: VALUE}

        """

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dm-config-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aFileWithAByteOrderMarkIsReadAndAMissingFileOrAFolderIsNamed() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("lists.yaml")
        try Data([0xEF, 0xBB, 0xBF] + Array(Self.yaml.replacingOccurrences(of: "VALUE", with: "3").utf8)).write(
            to: file
        )
        #expect(try ConfigFileLoader.load(path: file.path).lists.map(\.definition.name) == ["tasks"])
        for (path, says) in [
            (folder.appendingPathComponent("nope.yaml").path, "does not exist"), (folder.path, "is a folder"),
        ] {
            let error = #expect(throws: ConfigFileErrors.self) { _ = try ConfigFileLoader.load(path: path) }
            #expect(error?.description.contains(says) == true, "\(error?.description ?? "")")
        }
    }

    /// A pipe (`--config <(envsubst < lists.yaml)`) is read; a device is read as far as the
    /// bound (`/dev/null` is empty, `/dev/zero` endless), not called unreadable.
    @Test func aPipeIsReadAndADeviceIsBounded() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipe = folder.appendingPathComponent("lists.yaml").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let writer = Task.detached {
            try Data(Self.yaml.replacingOccurrences(of: "VALUE", with: "3").utf8).write(to: URL(fileURLWithPath: pipe))
        }
        let piped = try ConfigFileLoader.load(path: pipe)
        #expect(piped.lists.map(\.definition.name) == ["tasks"])
        // Its relative paths are the working directory's, not the pipe's folder's.
        let store = FileManager.default.currentDirectoryPath + "/data.sqlite"
        #expect("\(piped.store)".contains(store), "\(piped.store)")
        try await writer.value
        for (path, says) in [("/dev/null", "the file is empty"), ("/dev/zero", "holds more than 32 MiB")] {
            let error = #expect(throws: ConfigFileErrors.self) { _ = try ConfigFileLoader.load(path: path) }
            #expect(error?.description.contains(says) == true, "\(error?.description ?? "")")
        }
    }

    /// A YAML error is given at a line of the file: a control character where it is, an
    /// unclosed quote where it opens (not at the file's end, nor a line past it; review
    /// 92 #10), a flow sequence left open at the end of the last line; in a file whose
    /// lines end in CR LF too (probe 85).
    @Test(arguments: [
        ("a:\n  b: c\u{0}\n", 2, 7, "control characters are not allowed (U+0000)"),
        ("a:\n  b: 'c\n", 2, 6, "unexpected end of stream while scanning a quoted scalar that begins here"),
        ("a:\n  b: \"c\n  d: e\n  f: g\n", 2, 6, "while scanning a quoted scalar that begins here; close it"),
        ("a:\n  b: [c, d\n", 2, 11, "did not find expected ',' or ']'"),
        // Saved on Windows: each error at its line (all were at the end of line 1).
        ("a:\r\n  b: \"c\r\n  d: e\r\n", 2, 6, "while scanning a quoted scalar that begins here"),
        ("a:\r\n  b: c\r\n  d: *e\r\n", 3, 6, "found undefined alias '*e'"),
        ("a:\r\n  b: [c, d\r\n", 2, 11, "did not find expected ',' or ']'"),
    ])
    func aYAMLErrorIsAtALineOfTheFile(yaml: String, line: Int, column: Int, says: String) {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let error = #expect(throws: ConfigFileErrors.self) { _ = try loader.parse(yaml) }
        let first = error?.errors.first
        #expect(
            first?.line == line && first?.column == column && first?.message.contains(says) == true,
            "\(error as Any)"
        )
    }

    /// A file saved as Latin-1: its bytes would be read as U+FFFD, and a table named so made
    /// anew, empty, beside the one meant.
    @Test func aFileThatIsNotUTF8IsRefusedAtItsLine() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("lists.yaml")
        let text = Self.yaml.replacingOccurrences(of: "VALUE", with: "3").replacingOccurrences(
            of: "table: tasks",
            with: "table: t\u{E9}"
        )
        try Data(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }).write(to: file)
        let error = #expect(throws: ConfigFileErrors.self) { _ = try ConfigFileLoader.load(path: file.path) }
        #expect(error?.errors.first?.message.contains("not UTF-8") == true)
        #expect(error?.errors.first?.line == 6)
    }

    @Test(
        "a filter value that is not one value, or not of its field's type, is an error",
        arguments: [
            ("[1, 2]", "must be one value"), ("{a: 1}", "must be one value"), ("abc", "does not fit field 'size'"),
            ("1.5", "does not fit field 'size'"), ("true", "'value' true does not fit field 'size'"),
            ("off", "'value' off (YAML's false) does not fit field 'size'"),
            // YAML 1.1's other spellings of numbers, which every other number read is not.
            ("010", "'010' is a number YAML reads as 8; write it in decimal"), ("0x10", "reads as 16"),
            ("1_000", "reads as 1000"), ("+3", "'+3' is a number YAML reads as 3"),
        ]
    )
    func aFilterValueMustFitItsField(value: String, says: String) throws {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let error = #expect(throws: ConfigFileErrors.self) {
            _ = try loader.parse(Self.yaml.replacingOccurrences(of: "VALUE", with: value))
        }
        #expect(error?.description.contains(says) == true, "\(error?.description ?? "")")
        #expect(error?.description.contains("test.yaml:12:") == true, "\(error?.description ?? "")")
        var good = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        for fitting in ["3", "null", "-2", "0"] {
            _ = try good.parse(Self.yaml.replacingOccurrences(of: "VALUE", with: fitting))
        }
    }

    @Test func aKeyGivenTwiceIsNamedAtItsFirstPlace() {
        let yaml =
            Self.yaml.replacingOccurrences(of: "VALUE", with: "3")
            + "  tasks:\n    title: Again\n    table: t2\n    fields: {title: string}\n    views:\n      all: {sort: [title]}\n"
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let error = #expect(throws: ConfigFileErrors.self) { _ = try loader.parse(yaml) }
        #expect(
            error?.description.contains("test.yaml:4:3: error: 'tasks' is declared twice in one mapping") == true,
            "\(error?.description ?? "")"
        )
        #expect(error?.description.contains("Context") == false)
    }

    /// A YAML merge key is named as one (it was "unknown key '<<'"); a quoted '<<' is a
    /// key like any other.
    @Test func aMergeKeyIsNamedAsOne() {
        let yaml = """
            store:
              sqlite: a.sqlite
            lists:
              x:
                table: t
                fields: {a: string}
                views:
                  v: &v {sort: [a]}
                  w:
                    <<: *v
                    default: true
            """
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let error = #expect(throws: ConfigFileErrors.self) { _ = try loader.parse(yaml) }
        #expect(
            error?.errors.first.map { "\($0.line): \($0.message)" }
                == "10: view 'w' has a YAML merge key ('<<'), which this file does not read; write the "
                + "keys out, or give the whole mapping by an alias (*name)",
            "\(error?.description ?? "")"
        )
        let quoted = #expect(throws: ConfigFileErrors.self) {
            _ = try loader.parse(yaml.replacingOccurrences(of: "<<:", with: "'<<':"))
        }
        #expect(quoted?.description.contains("unknown key '<<'") == true, "\(quoted?.description ?? "")")
    }

    @Test func errorsOfOneViewDoNotHideTheListsOrTheConditionsOthers() {
        let yaml = """
            store:
              sqlite: a.sqlite
            lists:
              tasks:
                title: T
                table: t
                fields: {title: string}
                views:
                  v1: {default: true, sort: [nope]}
                  v2:
                    default: true
                    sort: [title]
                    filter:
                      - {field: draft, op: is, value: false}

            """
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let error = #expect(throws: ConfigFileErrors.self) { _ = try loader.parse(yaml) }
        let text = error?.description ?? ""
        for expected in [
            "marks 2 views as default ('v1', 'v2')", "sorts by 'nope'", "filters on 'draft'", "filter 'op' is 'is'",
        ] {
            #expect(text.contains(expected), "\(expected) in \(text)")
        }
    }

    @Test func aScopeGivenAsOneNameSaysWhatAScopeIs() {
        let yaml = Self.yaml.replacingOccurrences(of: "VALUE", with: "3")
            .replacingOccurrences(of: "    views:", with: "    scope: title\n    views:")
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let error = #expect(throws: ConfigFileErrors.self) { _ = try loader.parse(yaml) }
        #expect(
            error?.description.contains(
                "'scope' is the field and the token's claim it must equal, e.g. "
                    + "'scope: {field: title, claim: sub}'"
            ) == true,
            "\(error?.description ?? "")"
        )
    }
}
