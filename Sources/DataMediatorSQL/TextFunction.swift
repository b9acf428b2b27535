/// The PostgreSQL functions the store makes to show a column as text (``TimeText``,
/// ``EnumText``): `IMMUTABLE`, so that a view's index can hold them, and in PL/pgSQL.
///
/// A SQL-language function whose body PostgreSQL cannot inline (a `STRICT` one over a
/// `CASE`, or over a cast that is only `STABLE`) runs through the SQL function executor
/// on every row, several times slower than PL/pgSQL's simple-expression path; a view's
/// sections and marks after another program's change evaluate it once per row of the
/// list (figures in docs/performance.md).
public enum TextFunction {
    /// The statement that makes the function `name(signature)` returning the text of
    /// `expression` (over `$1`, `$2`...) when it is missing, and remakes one an earlier
    /// release made in SQL (same text: the indexes over it stay right) when the store's user
    /// may; a function another database user made is otherwise left alone, as the
    /// service's tables are.
    public static func statement(_ name: String, _ signature: String, _ expression: String) -> String {
        """
        DO $do$ DECLARE made regprocedure := to_regprocedure('\(name)(\(signature))'); BEGIN
        IF made IS NULL OR EXISTS (
        SELECT 1 FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.oid = made AND l.lanname = 'sql' AND pg_has_role(p.proowner, 'USAGE')) THEN
        CREATE OR REPLACE FUNCTION \(name)(\(signature)) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$ BEGIN RETURN \(expression); END $fn$;
        END IF;
        END $do$
        """
    }
}
