import Yams

/// YAML syntax errors as a config's author reads them: at a line of the file, in plain
/// words where libyaml's are obscure.
extension ConfigFileLoader {
    /// Yams' error for the file as a ``ConfigFileError`` at its line and column (an
    /// unclosed quote where it opens, an undefined alias by name), in plain words.
    func syntaxError(_ error: any Error) -> ConfigFileError {
        if let yaml = error as? YamlError, case .parser(_, let problem, let mark, let text) = yaml {
            return syntaxError(problem, line: mark.line, column: mark.column, in: text)
        }
        if let yaml = error as? YamlError, case .scanner(let context, let problem, let mark, let text) = yaml {
            if let context, problem == "found unexpected end of stream" {
                // An unclosed quote or bracket: its end is the file's, its start is news.
                return syntaxError(
                    "\(problem) \(context.text) that begins here; close it",
                    line: context.mark.line,
                    column: context.mark.column,
                    in: text
                )
            }
            return syntaxError(problem, line: mark.line, column: mark.column, in: text)
        }
        if let yaml = error as? YamlError, case .composer(_, let problem, let mark, let text) = yaml {
            // An alias that names no anchor (`*nope`), said by its name.
            let line = Self.lines(of: text).dropFirst(mark.line - 1).first
            let alias = line.map { $0.dropFirst(mark.column - 1).prefix { !" \t,[]{}#".contains($0) } } ?? ""
            let named =
                alias.hasPrefix("*") && alias.count > 1
                ? " '\(alias)': no anchor '&\(alias.dropFirst())' before it" : ""
            return syntaxError(problem + named, line: mark.line, column: mark.column, in: text)
        }
        if let yaml = error as? YamlError, case .reader(let problem, let offset?, let value, let text) = yaml {
            // The reader gives a byte offset: the line is the newlines before it.
            let before = text.utf8.prefix(offset)
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = before.reversed().prefix { $0 != UInt8(ascii: "\n") }.count + 1
            let hex = String(value, radix: 16, uppercase: true)
            let character = value >= 0 ? " (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))" : ""
            let quoted = Self.lines(of: text).dropFirst(line - 1).first ?? ""
            return syntaxError("\(problem)\(character) in '\(quoted)'", line: line, column: column, in: text)
        }
        if let yaml = error as? YamlError, case .duplicatedKeysInMapping(let keys, let context) = yaml {
            return ConfigFileError(
                file: file,
                line: context.mark.line,
                column: context.mark.column,
                message: "\(Self.names(keys)) \(keys.count == 1 ? "is" : "are") declared twice in one mapping "
                    + "(first here); keep one"
            )
        }
        return ConfigFileError(file: file, line: 0, column: 0, message: "not valid YAML: \(error)")
    }

    /// A syntax error at `line` and `column` of `text`; past its end (an unclosed quote or
    /// bracket), at the end of its last line.
    private func syntaxError(_ problem: String, line: Int, column: Int, in text: String) -> ConfigFileError {
        let lines = Self.lines(of: text)
        let count = text.last?.isNewline == true ? lines.count - 1 : lines.count
        let found = line >= 1 && line <= lines.count ? lines[line - 1].unicodeScalars.dropFirst(column - 1).first : nil
        let problem = Self.plainWords(for: problem, at: found)
        guard line > count, let last = lines.prefix(count).last else {
            return ConfigFileError(file: file, line: line, column: column, message: "YAML syntax: \(problem)")
        }
        return ConfigFileError(
            file: file,
            line: count,
            column: last.unicodeScalars.count + 1,
            message: "YAML syntax: \(problem)"
        )
    }

    /// libyaml's words for the problems a hand-written config meets most, said with their
    /// fix; other problems as libyaml says them. `found` is the character at the problem's
    /// place, when the file has one there.
    static func plainWords(for problem: String, at found: Unicode.Scalar?) -> String {
        if problem.hasPrefix("found a tab character")
            || (problem == "found character that cannot start any token" && found == "\t")
        {
            return "a tab where YAML takes only spaces (\(problem)); indent with spaces"
        }
        if problem == "but found another document" || problem == "did not find expected <document start>" {
            return "a second document ('---' or '...' followed by more): a config file is one document; "
                + "merge the two or remove the second"
        }
        if problem.hasPrefix("Maximum nesting level reached") {
            return "nested too deep: libyaml reads at most 1000 levels of mappings and sequences"
        }
        return problem
    }

    /// The lines of `text` as libyaml counts them: a `\r\n` (a file saved on Windows) ends
    /// one line, as `\n` does (split at `\n` alone, such a file was one line, and every
    /// error was put at its end).
    static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }
}
