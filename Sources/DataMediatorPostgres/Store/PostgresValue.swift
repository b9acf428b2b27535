import DataMediator
import DataMediatorSQL
import Foundation
import PostgresNIO

extension JSONValue {
    /// Binds the value as PostgreSQL receives it: booleans, 64-bit integers, doubles and
    /// text as themselves, arrays and objects as JSON text.
    func bind(to bindings: inout PostgresBindings) {
        switch self {
        case .null: bindings.appendNull()
        case .bool(let flag): bindings.append(flag)
        case .integer(let whole): bindings.append(whole)
        case .number(let real): bindings.append(real)
        case .string(let text): bindings.append(text)
        case .array, .object: bindings.append(idString)
        }
    }

    /// The JSON value of a cell of one of the ``PostgresColumnKind`` types.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch PostgresColumnKind(cell.dataType) {
        case .integer: self = .integer(try cell.decode(Int64.self))
        case .real:
            // One NaN, whatever bits the column held: a position's values hash as they compare.
            let real = try cell.decode(Double.self)
            self = .number(real.isNaN ? .nan : real)
        case .decimal: self = Self.numeric(cell)
        case .boolean: self = .bool(try cell.decode(Bool.self))
        case .json:
            let text = try cell.decode(String.self)
            self = (try? JSONValue.parse(Array(text.utf8))) ?? .string(text)
        case .text, nil:
            // A time is read through its text (``DataMediatorSQL/KeysetSQL/selected(_:)``):
            // PostgresNIO would turn its stored bytes into text of no meaning.
            if PostgresStore.timeKind(cell.dataType) != nil {
                throw UnreadableCell(type: cell.dataType)
            }
            // PostgresNIO reads a uuid through Foundation's UUID, in capitals; PostgreSQL's
            // own text of one (what was written, what psql shows) is in small letters.
            let text = try cell.decode(String.self)
            self = .string(cell.dataType == .uuid ? text.lowercased() : text)
        }
    }
}

extension JSONValue {
    /// A `numeric` cell's value: a whole number that fits 64 bits (a SUM of integers, say,
    /// or `12.000`) stays an integer, any other the double nearest its decimal digits; `NaN` and the
    /// infinities are those doubles, as a `real` column's are: JSON cannot hold them (a page
    /// shows them as null, ``JSONWriter``), but a cursor carries them, so a walk passes an
    /// item whose sort key is one (as null, its position would be compared as a null the
    /// row does not hold).
    ///
    /// The digits come from PostgresNIO's ``PostgresNumeric/string``, not its `Decimal`:
    /// that one traps on a value past Foundation's `Decimal` range (`1e170`, `1e-130`),
    /// and its `doubleValue` is not the nearest double (`0.07` came back as
    /// `0.06999999999999999`).
    static func numeric(_ cell: PostgresCell) -> JSONValue {
        guard let bytes = cell.bytes else { return .null }
        let text: String
        if cell.format == .text {
            text = String(buffer: bytes)
        } else {
            // The third word of the header is the sign: 0xC000 NaN, 0xD000 and 0xF000 the
            // infinities (PostgresNIO reads them as 0).
            guard let sign = bytes.getInteger(at: bytes.readerIndex + 4, as: UInt16.self) else { return .null }
            switch sign {
            case 0xC000: return .number(.nan)
            case 0xD000: return .number(.infinity)
            case 0xF000: return .number(-.infinity)
            default: break
            }
            guard let numeric = PostgresData(type: .numeric, value: bytes).numeric else { return .null }
            text = numeric.string
        }
        switch text {
        case "NaN": return .number(.nan)
        case "Infinity": return .number(.infinity)
        case "-Infinity": return .number(-.infinity)
        default: break
        }
        // `12.000` (an AVG of whole numbers, say) is whole too.
        let digits = text.split(separator: ".", maxSplits: 1)
        if digits.count <= 2, digits.dropFirst().allSatisfy({ $0.allSatisfy { $0 == "0" } }),
            let whole = digits.first.flatMap({ Int64($0) })
        {
            return .integer(whole)
        }
        // Past a double's range (a numeric holds up to 131,072 digits): the infinity nearest.
        guard let real = Double(text) else { return .null }
        return .number(real)
    }
}

/// A cell of a type the store reads only through its text form, read as it is stored: a
/// statement whose select list misses the column's form.
struct UnreadableCell: Error, CustomStringConvertible {
    let type: PostgresDataType

    var description: String { "a \(type) column was read as it is stored, not as its text" }
}

/// The kinds of PostgreSQL column a list can read, by how their values become JSON.
enum PostgresColumnKind: Sendable, Hashable {
    case integer, real, decimal, boolean, text, json

    /// The kind of a column type; nil for a type the store cannot show (cast it to text in
    /// a query list).
    init?(_ type: PostgresDataType) {
        switch type {
        case .int2, .int4, .int8: self = .integer
        case .float4, .float8: self = .real
        case .numeric: self = .decimal
        case .bool: self = .boolean
        // A time column is read as its ISO 8601 text (``DataMediatorSQL/TimeText``).
        case .text, .varchar, .bpchar, .name, .uuid, .timestamptz, .timestamp, .date, .time: self = .text
        case .json, .jsonb: self = .json
        default: return nil
        }
    }
}

extension PostgresQuery {
    /// A query from SQL with `?` placeholders (numbered here) and the values they bind.
    init(sql: String, values: [JSONValue]) {
        self.init(unsafeSQL: SQL.numbered(sql), binds: PostgresBindings(values))
    }
}

extension PostgresBindings {
    /// The bindings of `values`, in order, each as ``DataMediator/JSONValue/bind(to:)`` binds it.
    init(_ values: [JSONValue]) {
        self.init(capacity: values.count)
        for value in values { value.bind(to: &self) }
    }
}

extension PostgresRow {
    /// The row's cells from the `skipping`-th on as JSON values, in column order, each shown
    /// as its field's declared type says (see ``DataMediator/FieldType/present(_:)``).
    func jsonValues(types: [FieldType?], skipping skipped: Int = 0) throws -> [JSONValue] {
        var values: [JSONValue] = []
        values.reserveCapacity(types.count)
        for (index, cell) in enumerated() where index >= skipped {
            let value = try JSONValue(cell)
            let field = index - skipped
            values.append(field < types.count ? types[field].map { $0.present(value) } ?? value : value)
        }
        return values
    }
}
