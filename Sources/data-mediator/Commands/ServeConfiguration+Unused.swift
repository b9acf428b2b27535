extension ServeConfiguration {
    /// The settings given that this start has no use for, each named with why, for a
    /// warning at start: an operator who set one meant something by it (a pool size for a
    /// SQLite store, a token rule with no key to verify tokens, a demo size beside a
    /// config), and a setting that silently does nothing is found only in production.
    ///
    /// - Parameters:
    ///   - sqlite: whether the store is a SQLite file.
    ///   - demoFlag: whether `--demo-transactions` was given on the command line.
    static func unusedSettings(in environment: [String: String], sqlite: Bool, config: Bool, demoFlag: Bool) -> [String]
    {
        let given = { (name: String) in environment[name].map { !$0.isEmpty } ?? false }
        var unused: [String] = []
        if sqlite {
            unused += [
                "DATA_MEDIATOR_DATABASE_CONNECTIONS", "DATA_MEDIATOR_DATABASE_PREPARE",
                "DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS",
            ].filter(given).map {
                "\($0) is set, but the store is a SQLite file: it is PostgreSQL's setting; it is ignored"
            }
        }
        let keySet = given("DATA_MEDIATOR_JWKS_FILE")
        if !keySet, !given("DATA_MEDIATOR_JWT_SECRET") {
            unused += ["DATA_MEDIATOR_JWT_AUDIENCE", "DATA_MEDIATOR_JWT_ISSUER", "DATA_MEDIATOR_JWT_REQUIRE_EXP"]
                .filter(given).map {
                    "\($0) is set, but no JWT is verified: neither DATA_MEDIATOR_JWT_SECRET nor DATA_MEDIATOR_JWKS_FILE "
                        + "is set; it is ignored"
                }
        }
        if !keySet, given("DATA_MEDIATOR_JWKS_RELOAD_SECONDS") {
            unused.append(
                "DATA_MEDIATOR_JWKS_RELOAD_SECONDS is set, but DATA_MEDIATOR_JWKS_FILE is not: there is no key set "
                    + "file to read again; it is ignored"
            )
        }
        if config, demoFlag || given("DATA_MEDIATOR_DEMO_TRANSACTIONS") {
            unused.append(
                "\(demoFlag ? "--demo-transactions" : "DATA_MEDIATOR_DEMO_TRANSACTIONS") is set, but a config is "
                    + "served, not the built-in demo; it is ignored"
            )
        }
        return unused
    }
}
