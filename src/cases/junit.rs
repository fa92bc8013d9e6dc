//! The JUnit XML report of a run (the format CI systems read: one `<testsuite>` per
//! collection file, one `<testcase>` per case, `<failure>` for a broken expectation,
//! `<error>` for a case that could not run).

use std::fmt::Write as _;
use std::time::Duration;

use super::{Case, Failure};
use crate::sanitize::escape_markup as escape;

/// How one case ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Pass,
    Fail(Vec<Failure>),
    /// It could not run (its server did not start, no such tool…).
    Error(String),
}

/// One case and how it ended.
#[derive(Debug, Clone)]
pub struct CaseReport {
    pub case: Case,
    pub outcome: Outcome,
    pub elapsed: Duration,
}

/// The report as JUnit XML.
pub fn junit_xml(reports: &[CaseReport], total: Duration) -> String {
    let mut files: Vec<&std::path::Path> = Vec::new();
    for report in reports {
        if !files.contains(&report.case.file.as_path()) {
            files.push(&report.case.file);
        }
    }
    let (failures, errors) = counts(reports.iter());
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"switchboard test\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{:.3}\">",
        reports.len(),
        total.as_secs_f64()
    );
    for file in files {
        let mine: Vec<&CaseReport> = reports.iter().filter(|r| r.case.file == file).collect();
        let (failures, errors) = counts(mine.iter().copied());
        let time: Duration = mine.iter().map(|r| r.elapsed).sum();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{:.3}\">",
            escape(&file.display().to_string()),
            mine.len(),
            time.as_secs_f64()
        );
        for report in mine {
            testcase(&mut xml, report);
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn counts<'a>(reports: impl Iterator<Item = &'a CaseReport>) -> (usize, usize) {
    reports.fold((0, 0), |(f, e), r| match r.outcome {
        Outcome::Pass => (f, e),
        Outcome::Fail(_) => (f + 1, e),
        Outcome::Error(_) => (f, e + 1),
    })
}

fn testcase(xml: &mut String, report: &CaseReport) {
    let case = &report.case;
    let _ = write!(
        xml,
        "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{}\" time=\"{:.3}\"",
        escape(&case.name),
        escape(&case.server),
        escape(&case.file.display().to_string()),
        case.line,
        report.elapsed.as_secs_f64()
    );
    match &report.outcome {
        Outcome::Pass => xml.push_str("/>\n"),
        Outcome::Fail(failures) => {
            let first = failures.first().map(Failure::lines).unwrap_or_default();
            let body: Vec<String> = failures.iter().flat_map(Failure::lines).collect();
            let _ = write!(
                xml,
                ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                failures.first().map_or("", |f| f.check),
                escape(first.first().map_or("", String::as_str)),
                escape(&body.join("\n"))
            );
        }
        Outcome::Error(why) => {
            let _ = write!(
                xml,
                ">\n      <error type=\"error\" message=\"{}\">{}</error>\n    </testcase>\n",
                escape(why),
                escape(why)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::{Expect, Target};

    fn report(name: &str, file: &str, outcome: Outcome) -> CaseReport {
        CaseReport {
            case: Case {
                name: name.into(),
                server: "weather".into(),
                target: Target::Read { uri: "x://".into() },
                expect: Expect::default(),
                file: file.into(),
                line: 3,
            },
            outcome,
            elapsed: Duration::from_millis(1500),
        }
    }

    #[test]
    fn suites_per_file_with_failures_and_errors() {
        let failure = Failure {
            check: "text_contains",
            detail: vec![
                "\"rain\" not in the text".into(),
                "text: <sunny> & \u{1b}dry".into(),
            ],
        };
        let xml = junit_xml(
            &[
                report("paris", "a.toml", Outcome::Pass),
                report("london", "a.toml", Outcome::Fail(vec![failure])),
                report(
                    "rome",
                    "b.toml",
                    Outcome::Error("server weather could not start".into()),
                ),
            ],
            Duration::from_secs(2),
        );
        insta::assert_snapshot!(xml, @r#"
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="switchboard test" tests="3" failures="1" errors="1" time="2.000">
          <testsuite name="a.toml" tests="2" failures="1" errors="0" time="3.000">
            <testcase name="paris" classname="weather" file="a.toml" line="3" time="1.500"/>
            <testcase name="london" classname="weather" file="a.toml" line="3" time="1.500">
              <failure type="text_contains" message="text_contains: &quot;rain&quot; not in the text">text_contains: &quot;rain&quot; not in the text
          text: &lt;sunny&gt; &amp; �dry</failure>
            </testcase>
          </testsuite>
          <testsuite name="b.toml" tests="1" failures="0" errors="1" time="1.500">
            <testcase name="rome" classname="weather" file="b.toml" line="3" time="1.500">
              <error type="error" message="server weather could not start">server weather could not start</error>
            </testcase>
          </testsuite>
        </testsuites>
        "#);
    }
}
