import DataMediator
import Testing

/// A day or month section's title names its date only when its key is one (`YYYY-MM-DD`,
/// `YYYY-MM`): any other key is its own title (review 110 #5: `-0044-03-15` cut to
/// `1 Mar 0044`, `10000-01-01` to `0 Jan 10000`, and `2026-3-8` titled as the separate
/// section `2026-03-08`).
@Suite struct SectionTitleTests {
    @Test(arguments: [
        ("2026-11-19", "19 Nov 2026"), ("0001-01-01", "1 Jan 0001"), ("2026-03-08", "8 Mar 2026"),
        ("2026-3-8", "2026-3-8"), ("-0044-03-1", "-0044-03-1"), ("10000-01-0", "10000-01-0"),
        ("2026-13-01", "2026-13-01"), ("2026-02-32", "2026-02-32"), ("2026-02-00", "2026-02-00"),
        ("2026-03-0８", "2026-03-0８"), ("abcd-ef-gh", "abcd-ef-gh"),
    ])
    func dayTitles(key: String, title: String) {
        #expect(SectionRule(field: "at", grouping: .day).title(for: .string(key)) == title)
    }

    @Test(arguments: [
        ("2026-11", "November 2026"), ("2026-1", "2026-1"), ("-0044-03", "-0044-03"), ("10000-01", "10000-01"),
        ("2026-00", "2026-00"),
    ])
    func monthTitles(key: String, title: String) {
        #expect(SectionRule(field: "at", grouping: .month).title(for: .string(key)) == title)
    }
}
