/// The text of a PostgreSQL time column (`timestamptz`, `timestamp`, `date`, `time`) as the
/// service shows, compares and orders it: ISO 8601, a `timestamptz` in UTC with `Z`
/// (`2026-11-19T21:04:00.123456Z`), a `timestamp` without a zone, a `date` as `YYYY-MM-DD`;
/// always as many fractional digits as the column keeps (six unless declared fewer), so
/// that the texts' byte order is the times' order (for years 1 to 9999), as the core and
/// cursors compare them. `infinity` and `-infinity` show as those words, which order after
/// and before every year. A `time` of day is PostgreSQL's own text of it (`08:30:00`,
/// `08:30:00.5`): nothing follows its fraction, so a shorter text is the smaller time.
///
/// The text is one function the store creates (``functions``), declared `IMMUTABLE`
/// so that a view's index can hold it: `to_char` is only `STABLE` (some patterns follow
/// the session's locale; the ones used here do not, and the zone is fixed to UTC).
public enum TimeText {
    /// The PostgreSQL types whose columns are shown as this text.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `timestamp with time zone`: an instant, shown in UTC.
        case timestamptz
        /// `timestamp without time zone`: a wall-clock time, shown without a zone.
        case timestamp
        /// `date`.
        case date
        /// `time without time zone`: a time of day.
        case time
    }

    /// The name of the function (overloaded by kind) that gives a time's text.
    public static let function = "data_mediator_time_text"

    /// The text of the column `field` of `kind` keeping `digits` fractional digits of a
    /// second (0 to 6; ignored for a date), as SQL.
    public static func form(of field: String, kind: Kind, digits: Int) -> String {
        switch kind {
        case .date: return "\(function)(\(SQL.quote(field)))"
        // Its cast to text is IMMUTABLE already.
        case .time: return "CAST(\(SQL.quote(field)) AS text)"
        case .timestamptz, .timestamp: return "\(function)(\(SQL.quote(field)), \(min(max(digits, 0), 6)))"
        }
    }

    /// The name of the function (overloaded by kind) a written `date`, `timestamp` or
    /// `timestamptz` passes through (``writtenFunctions``).
    public static let writtenFunction = "data_mediator_time_written"

    /// The value a write gives the column `field` of `kind`, as SQL over one `?` (the text
    /// written): a time whose year (in UTC) is outside 1 to 9999 is refused naming the
    /// field, as a value its column cannot hold (SQLSTATE 22008), since its text would not
    /// read back as written (`to_char` drops a date's era: `0044-03-15 BC` would show, and
    /// be written back, as `0044-03-15`) nor order among the others (`10000-01-01` sorts
    /// before `2026-01-01` as text).
    /// `given` is what is written in place of the `?`: an array's element. A time is checked
    /// as its column keeps it, rounded to the column's `digits` (0 to 6): `23:59:59.5` on
    /// the last day of 9999 is year 10000 in a column of whole seconds.
    /// `place`, SQL text of an array element's place (`1` or `1, 0`), is named beside the
    /// time refused.
    public static func written(
        _ field: String,
        kind: Kind,
        digits: Int = 6,
        given: String = "?",
        place: String? = nil
    ) -> String {
        let kept = "(\(min(max(digits, 0), 6)))"
        let value: String
        switch kind {
        // A `time` keeps 12:00 of 12:00+02 as PostgreSQL reads it: read as a timetz,
        // it is the time of day in UTC, the sessions' zone. The end of the day,
        // `24:00:00` in UTC, is kept as written: `AT TIME ZONE` would turn it into the
        // start of the day, `00:00:00`.
        case .time:
            return "(SELECT CASE WHEN written = '24:00:00+00' THEN CAST('24:00:00' AS time) "
                + "ELSE CAST(written AT TIME ZONE 'UTC' AS time) END "
                + "FROM (SELECT \(zoned(given, as: "timetz", checkedAs: "time")) AS written) AS value)"
        // So does a `timestamp` drop a zone its text gives: read as a timestamptz first,
        // the time is the instant's in UTC.
        case .timestamp:
            value = "CAST(\(zoned(given, as: "timestamptz", checkedAs: "timestamp")) AS timestamp\(kept))"
        case .timestamptz: value = "CAST(\(given) AS timestamptz\(kept))"
        case .date: value = "CAST(\(given) AS date)"
        }
        return "\(writtenFunction)(\(value), \(SQL.literal(field))\(place.map { ", \($0)" } ?? ""))"
    }

    /// `given` cast to `zoned`, the type with a zone that a column of type `plain` is
    /// written through, as SQL: cast to `plain` first, so that text that is no time is
    /// refused in the words of the column's own type (`invalid input syntax for type
    /// time`), not of the zoned one (`... time with time zone`), whatever language the
    /// server speaks. Both types read text alike.
    static func zoned(_ given: String, as zoned: String, checkedAs plain: String) -> String {
        "(SELECT CASE WHEN CAST(t AS \(plain)) IS NULL THEN NULL ELSE CAST(t AS \(zoned)) END "
            + "FROM (SELECT CAST(\(given) AS text) AS t) AS given)"
    }

    /// The JSON text of the array column `field` of times of `kind`, as SQL: each element
    /// as ``form(of:kind:digits:)`` shows a column of its kind (`null` for a `NULL` one),
    /// so that an array's times read as the same times in columns do; one of two dimensions
    /// as a JSON array of its rows (`unnest` gives its elements row after row). An array of
    /// more dimensions is PostgreSQL's own JSON of it (writes make none).
    public static func arrayForm(of field: String, kind: Kind, digits: Int) -> String {
        let column = SQL.quote(field)
        let element = form(of: "element", kind: kind, digits: digits)
        return "CASE COALESCE(array_ndims(\(column)), 0) "
            + "WHEN 1 THEN CAST((SELECT json_agg(\(element) ORDER BY n) "
            + "FROM unnest(\(column)) WITH ORDINALITY AS elements(element, n)) AS text) "
            + "WHEN 2 THEN CAST((SELECT json_agg(cells ORDER BY r) FROM (SELECT (n - 1) / array_length(\(column), 2) AS r, "
            + "json_agg(\(element) ORDER BY n) AS cells FROM unnest(\(column)) WITH ORDINALITY AS elements(element, n) "
            + "GROUP BY 1) AS rows) AS text) "
            + "ELSE CAST(to_json(\(column)) AS text) END"
    }

    /// The fractional digits a time column keeps, from its type modifier (-1 or nil when
    /// the column declares none: six).
    public static func digits(typeModifier: Int32?) -> Int {
        guard let typeModifier, typeModifier >= 0 else { return 6 }
        return min(Int(typeModifier), 6)
    }

    /// The statements that make the functions (``TextFunction``), one per kind.
    public static let functions: [String] = {
        // `FF1`..`FF6` are the fractional digits, `SS` alone none.
        let patterns = (0...6).map { digits in
            "WHEN \(digits) THEN 'YYYY-MM-DD\"T\"HH24:MI:SS\(digits == 0 ? "" : ".FF\(digits)")"
        }
        func time(_ type: String, zone: String, suffix: String) -> (signature: String, expression: String) {
            let value = zone.isEmpty ? "$1" : "$1 AT TIME ZONE '\(zone)'"
            let formats = patterns.map { $0 + suffix + "'" }.joined(separator: " ")
            return (
                "\(type), integer",
                "CASE WHEN isfinite($1) THEN to_char(\(value), CASE $2 \(formats) END) "
                    + "WHEN $1 > 'epoch' THEN 'infinity' ELSE '-infinity' END"
            )
        }
        let date = (
            signature: "date",
            expression: "CASE WHEN isfinite($1) THEN to_char($1, 'YYYY-MM-DD') "
                + "WHEN $1 > 'epoch' THEN 'infinity' ELSE '-infinity' END"
        )
        return [
            time("timestamptz", zone: "UTC", suffix: "\"Z\""), time("timestamp", zone: "", suffix: ""), date,
        ].map { TextFunction.statement(Self.function, $0.signature, $0.expression) }
    }()

    /// The statements that make ``writtenFunction`` for each kind a write checks, when
    /// missing (its text has not changed since it was first made): with the field's name,
    /// and with an array element's place after it too.
    public static let writtenFunctions: [String] = [
        ("date", "'0001-01-01'", "'10000-01-01'"),
        ("timestamp", "'0001-01-01 00:00:00'", "'10000-01-01 00:00:00'"),
        ("timestamptz", "'0001-01-01 00:00:00+00'", "'10000-01-01 00:00:00+00'"),
    ].flatMap { type, first, past in
        [("text", "%", "$1"), ("text, text", "% (at index %)", "$1, $3")].map { parameters, named, values in
            """
            DO $do$ BEGIN
            IF to_regprocedure('\(writtenFunction)(\(type), \(parameters))') IS NULL THEN
            CREATE OR REPLACE FUNCTION \(writtenFunction)(\(type), \(parameters)) RETURNS \(type)
            LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$ BEGIN
            IF NOT isfinite($1) OR ($1 >= \(first) AND $1 < \(past)) THEN RETURN $1; END IF;
            RAISE EXCEPTION '\(named) is outside the years 1 to 9999, the times the service shows and orders as written',
            \(values) USING ERRCODE = '22008', COLUMN = $2;
            END $fn$;
            END IF;
            END $do$
            """
        }
    }
}
