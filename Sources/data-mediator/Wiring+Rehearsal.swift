import DataMediator
import DataMediatorSQL

extension Wiring {
    /// Checks every list of `configuration` (read from `configFile`) with `rehearsal`, which
    /// checks the lists over a store against it and changes nothing, and reads the item
    /// files of the lists served from one; returns those items by list name. `serve` and
    /// `check --store` check so.
    ///
    /// - Throws: ``ConfigFileErrors`` for every list whose source does not fit its
    ///   declaration, or whose file cannot be read, at the list's line.
    static func rehearse(
        _ configuration: MediatorConfiguration,
        file configFile: String,
        rehearsal: ([(list: ListDefinition, source: StoreSource)]) async throws -> [StoreError]
    ) async throws -> [String: [Item]] {
        var files: [String: [Item]] = [:]
        var problems: [ConfigFileError] = []
        var sourced: [(list: ListDefinition, source: StoreSource)] = []
        for list in configuration.preparationOrder {
            guard let file = list.file else {
                if let source = list.source { sourced.append((list.definition, source)) }
                continue
            }
            do {
                files[list.definition.name] = try ItemFile.read(
                    path: file,
                    idField: list.definition.idField,
                    types: list.fieldTypes,
                    rules: list.definition.rules
                )
            } catch {
                problems.append(
                    ConfigFileError(
                        file: configFile,
                        line: list.line,
                        column: 1,
                        message: "list '\(list.definition.name)': \(error.description)"
                    )
                )
            }
        }
        for error in try await rehearsal(sourced) {
            let line = configuration.lists.first { $0.definition.name == error.list }?.line ?? 1
            problems.append(ConfigFileError(file: configFile, line: line, column: 1, message: error.description))
        }
        if !problems.isEmpty { throw ConfigFileErrors(errors: problems.sorted { $0.line < $1.line }) }
        return files
    }
}
