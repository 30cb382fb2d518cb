//! The query steps' command line beyond the common options of [`crate::run::cli`]: the
//! columns (`--group-by`, `--sum`), how the file is read (`--null`, `--no-header`),
//! what is printed (`--agg`, `--format 1brc`), and the [`Query`] they make.
//! Re-exported from [`crate::run::cli`].

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::dialect::Dialect;
use crate::query::{Aggs, NotAnAggregate, Query};
use crate::run::cli::command;
use crate::step::Step;

/// [`command`] for a query step (steps 5 to 13): `--json` prints the answer instead of
/// the row, and [`query_args`] name the query's columns.
pub fn query_command<S: Step>() -> Command {
    read_args(query_args(command::<S>().mut_arg("json", |a| {
        a.help("print the answer (or the error) as JSON instead of the table")
    })))
}

/// `command` with the query's options: `--group-by COLUMN` (default `category`) and
/// `--sum COLUMN` (default `value`), each a name in the header or a 1-based
/// position, and `--agg LIST`.
pub fn query_args(command: Command) -> Command {
    command
        .arg(
            Arg::new("group-by")
                .long("group-by")
                .value_name("COLUMN")
                .default_value("category")
                .help("the column to group by: its name in the header, or its position (1 is the first)"),
        )
        .arg(
            Arg::new("sum")
                .long("sum")
                .value_name("COLUMN")
                .default_value("value")
                .help("the column to sum: its name in the header, or its position"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["table", "1brc"])
                .default_value("table")
                .help("1brc: the One Billion Row Challenge: station;temperature lines, no header, printed as {name=min/mean/max, ...} (sets --delimiter ';' unless given, --no-header, --group-by 1 --sum 2, --agg min,mean,max: those three cannot be given with it)"),
        )
        .arg(
            Arg::new("agg")
                .long("agg")
                .value_name("LIST")
                .help("the aggregates to show, of count,sum,min,max,mean [default: count,sum]"),
        )
}

/// What the query's options say beyond its columns: the `--null` texts and the
/// `--agg` set.
#[derive(Clone, Debug, Default)]
pub struct QueryOptions {
    /// `--null`.
    pub nulls: Vec<String>,
    /// `--agg`.
    pub aggs: Aggs,
    /// `--format 1brc`.
    pub brc: bool,
}

/// `command` with how the file is read: `--null TEXT` (repeatable) and
/// `--no-header` (a query step's command has them; step 11's query over a table has
/// not: its load read the file).
pub fn read_args(command: Command) -> Command {
    command
        .arg(
            Arg::new("null")
                .long("null")
                .allow_hyphen_values(true)
                .value_name("TEXT")
                .action(ArgAction::Append)
                .help("a value that means NULL besides the empty field, e.g. NA (repeat for more)"),
        )
        .arg(
            Arg::new("no-header")
                .long("no-header")
                .action(ArgAction::SetTrue)
                .help(
                    "the first record is data, and the columns are named by position: give --group-by and --sum as numbers (e.g. --group-by 1 --sum 2)",
                ),
        )
}

/// The `--null` texts and the `--agg` set.
///
/// # Errors
/// [`OptionsError`]: a `--null` text that is itself a value the query would sum
/// (`-999`, `1e3`: a finite number; `NaN` and `inf` are not, so they may be `--null`
/// texts): a value could then be both a number and NULL, and the steps that aggregate
/// on a device decide before they see `--null`; an `--agg` word that is not an
/// aggregate; `--group-by`, `--sum` or `--agg` given with `--format 1brc`, which sets
/// them.
pub fn query_options(matches: &ArgMatches) -> Result<QueryOptions, OptionsError> {
    let nulls: Vec<String> = match matches.try_get_many::<String>("null") {
        Ok(Some(v)) => v.cloned().collect(),
        _ => Vec::new(),
    };
    if let Some(n) = nulls
        .iter()
        .find(|n| n.parse::<f64>().is_ok_and(f64::is_finite))
    {
        return Err(OptionsError::NullIsANumber(n.clone()));
    }
    let aggs = match matches.try_get_one::<String>("agg") {
        Ok(Some(list)) => Aggs::parse(list)?,
        _ => Aggs::DEFAULT,
    };
    let brc = matches!(matches.try_get_one::<String>("format"), Ok(Some(f)) if f == "1brc");
    if brc && let Some(given) = given_with_1brc(matches) {
        return Err(OptionsError::OverruledBy1brc(given));
    }
    Ok(QueryOptions { nulls, aggs, brc })
}

/// Why the query's options cannot be honoured (exit status 2).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A `--null` text that is a finite number.
    #[error(
        "--null {0}: that text is a number, so a value could be both; not supported \
         (remove those rows first, e.g. with grep -v)"
    )]
    NullIsANumber(String),
    /// An `--agg` word that is not an aggregate.
    #[error(transparent)]
    Agg(#[from] NotAnAggregate),
    /// `--group-by`, `--sum` or `--agg` given with `--format 1brc`, which sets them.
    #[error(
        "--format 1brc sets the columns (--group-by 1 --sum 2) and the aggregates \
         (min, mean, max): --{0} cannot be honoured with it (leave it out, or leave out \
         --format 1brc)"
    )]
    OverruledBy1brc(&'static str),
}

/// The first of `--group-by`, `--sum` and `--agg` given on the command line, which
/// `--format 1brc` would silently overrule ([`query`] sets them all).
fn given_with_1brc(matches: &ArgMatches) -> Option<&'static str> {
    ["group-by", "sum", "agg"].into_iter().find(|&id| {
        matches!(matches.try_get_raw(id), Ok(Some(_)))
            && matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
    })
}

/// The query that `matches` ask for (`options` from [`query_options`]).
pub fn query<'q>(matches: &'q ArgMatches, options: &'q QueryOptions) -> Query<'q> {
    let dialect = read_dialect(matches);
    if options.brc {
        let given = dialect.is_some()
            && matches.value_source("delimiter") == Some(clap::parser::ValueSource::CommandLine);
        return Query {
            group_by: "1",
            sum: "2",
            nulls: &options.nulls,
            dialect: match dialect {
                Some(dialect) if given => dialect,
                _ => Dialect { delimiter: b';' },
            },
            header: false,
            aggs: Aggs::MIN.with(Aggs::MAX).with(Aggs::MEAN),
        };
    }
    Query {
        group_by: matches
            .get_one::<String>("group-by")
            .expect("has a default"),
        sum: matches.get_one::<String>("sum").expect("has a default"),
        nulls: &options.nulls,
        dialect: dialect.unwrap_or_default(),
        header: !read_no_header(matches),
        aggs: options.aggs,
    }
}

/// `--delimiter`, where the command has it (step 11's query over a table has not: its
/// load read the file).
pub fn read_dialect(matches: &ArgMatches) -> Option<Dialect> {
    match matches.try_get_one::<Dialect>("delimiter") {
        Ok(Some(&dialect)) => Some(dialect),
        _ => None,
    }
}

/// `--no-header`, false where the command has no such option.
pub fn read_no_header(matches: &ArgMatches) -> bool {
    matches!(matches.try_get_one::<bool>("no-header"), Ok(Some(true)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> Result<QueryOptions, OptionsError> {
        let command = read_args(query_args(Command::new("any")));
        query_options(&command.get_matches_from([&["any"], args].concat()))
    }

    #[test]
    fn format_1brc_refuses_the_options_it_would_overrule() {
        // 1brc grouped by column 1 and summed column 2, and printed min/mean/max,
        // whatever --group-by, --sum and --agg said, without a word.
        for given in [["--group-by", "name"], ["--sum", "3"], ["--agg", "count"]] {
            let e = options(&[&["--format", "1brc"][..], &given[..]].concat())
                .unwrap_err()
                .to_string();
            assert!(e.contains(given[0]) && e.contains("--format 1brc"), "{e}");
            assert!(options(&given).is_ok(), "{given:?} alone");
        }
        let brc = options(&["--format", "1brc", "--no-header", "--null", "NA"]).unwrap();
        assert!(brc.brc);
        // Their defaults are no choice of the user's.
        assert!(options(&["--format", "1brc"]).is_ok());
    }
}
