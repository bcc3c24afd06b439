//! Tunable parameters as the tuner sees them, and the parameter file that
//! lists them. The file is OpenBench's format, which is also what the
//! engine's `spsa` command prints, one parameter a line:
//! `name, int, start, min, max, c_end, r_end` (or `float`), where `c_end`
//! and `r_end` may be left out (only the classic recipes use them), with an
//! optional last field `log` for a parameter that acts multiplicatively. A file is
//! parsed whole and every bad line is reported with its number, so a user
//! fixes them all at once instead of one per run.
//!
//! The tuner works in an internal coordinate per parameter: the value
//! itself, or its logarithm for a log-scale parameter. Integer values are
//! rounded only when a trial is handed out, stochastically and without
//! bias, so the tuner's own state moves smoothly.

use std::fmt;

use serde::{Deserialize, Serialize};

/// No number in a parameter may exceed this in size: integers stay exact in
/// an `f64` and no sum or product of the tuner's arithmetic overflows.
pub const MAX_MAGNITUDE: f64 = 1e15;

/// Whether the engine takes whole numbers or any number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A whole number; trials round it stochastically.
    Int,
    /// Any number in the range.
    Float,
}

impl Kind {
    /// The word in the parameter file: `int` or `float`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Int => "int",
            Self::Float => "float",
        }
    }
}

/// The coordinate the tuner moves a parameter in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// The value itself: equal steps add equal amounts.
    #[default]
    Linear,
    /// The logarithm of the value: equal steps multiply by equal factors,
    /// for parameters that act multiplicatively (time fractions, ratios).
    /// `c_end` is still given in the parameter's units, at its start value.
    Log,
}

/// One tunable parameter, with fishtest's and OpenBench's meaning of the
/// numbers: `c_end` is the perturbation at the end of the run (the plus and
/// minus engines differ by twice it), `r_end` the learning rate at the end,
/// so that the final step size is `a_end = r_end * c_end^2`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The name the engine knows it by (its UCI option).
    pub name: String,
    /// Whole numbers or any number.
    pub kind: Kind,
    /// The value the run starts from.
    pub start: f64,
    /// The least value a trial or the result may take.
    pub min: f64,
    /// The greatest value a trial or the result may take.
    pub max: f64,
    /// The final perturbation, in the parameter's units, for the classic
    /// recipes (the default derives its own and ignores it).
    #[serde(default)]
    pub c_end: Option<f64>,
    /// The final learning rate (dimensionless), for the classic recipes.
    #[serde(default)]
    pub r_end: Option<f64>,
    /// Linear or logarithmic coordinate.
    #[serde(default)]
    pub scale: Scale,
}

/// Why a parameter is unusable.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// The name is empty.
    #[error("the name is empty")]
    EmptyName,
    /// The name holds a character the CSV history or the option line cannot carry.
    #[error("the name '{0}' holds a comma, a quote or a control character")]
    BadName(String),
    /// A number is NaN, infinite or larger than [`MAX_MAGNITUDE`].
    #[error("{field} must be a finite number of at most 1e15 in size")]
    OutOfScale {
        /// `start`, `min`, `max`, `c_end` or `r_end`.
        field: &'static str,
    },
    /// `min` is not below `max`.
    #[error("min {min} is not below max {max}")]
    EmptyRange {
        /// The least value.
        min: f64,
        /// The greatest value.
        max: f64,
    },
    /// `start` lies outside `[min, max]`.
    #[error("start {start} is outside [{min}, {max}]")]
    StartOutside {
        /// The start value.
        start: f64,
        /// The least value.
        min: f64,
        /// The greatest value.
        max: f64,
    },
    /// A bound of an integer parameter is not a whole number.
    #[error("{field} of an int parameter must be a whole number, not {value}")]
    NotWhole {
        /// `min` or `max`.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// `c_end` or `r_end` is not positive.
    #[error("{field} must be positive, not {value}")]
    NotPositive {
        /// `c_end` or `r_end`.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// A log-scale parameter must stay positive.
    #[error("a log-scale parameter needs min > 0, not {0}")]
    LogNeedsPositive(f64),
}

impl Param {
    /// A linear-scale parameter, checked.
    ///
    /// # Errors
    /// A [`ParamError`] naming the first field at fault.
    pub fn new(
        name: &str,
        kind: Kind,
        start: f64,
        min: f64,
        max: f64,
        c_end: f64,
        r_end: f64,
    ) -> Result<Self, ParamError> {
        let mut param = Self::plain(name, kind, start, min, max)?;
        param.c_end = Some(c_end);
        param.r_end = Some(r_end);
        param.validate()?;
        Ok(param)
    }

    /// A linear-scale parameter without `c_end` and `r_end` (enough for the
    /// default recipe), checked.
    ///
    /// # Errors
    /// A [`ParamError`] naming the first field at fault.
    pub fn plain(name: &str, kind: Kind, start: f64, min: f64, max: f64) -> Result<Self, ParamError> {
        let param = Self {
            name: name.to_string(),
            kind,
            start,
            min,
            max,
            c_end: None,
            r_end: None,
            scale: Scale::Linear,
        };
        param.validate()?;
        Ok(param)
    }

    /// The same parameter moved in the logarithm of its value.
    ///
    /// # Errors
    /// [`ParamError::LogNeedsPositive`] when `min` is not positive.
    pub fn log_scale(mut self) -> Result<Self, ParamError> {
        self.scale = Scale::Log;
        self.validate()?;
        Ok(self)
    }

    /// Checks every field.
    ///
    /// # Errors
    /// A [`ParamError`] naming the first field at fault.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.name.is_empty() {
            return Err(ParamError::EmptyName);
        }
        if self.name.chars().any(|ch| ch == ',' || ch == '"' || ch.is_control()) || self.name.trim() != self.name {
            return Err(ParamError::BadName(self.name.clone()));
        }
        for (field, value) in [
            ("start", self.start),
            ("min", self.min),
            ("max", self.max),
            ("c_end", self.c_end.unwrap_or(1.0)),
            ("r_end", self.r_end.unwrap_or(1.0)),
        ] {
            if !value.is_finite() || value.abs() > MAX_MAGNITUDE {
                return Err(ParamError::OutOfScale { field });
            }
        }
        if self.min >= self.max {
            return Err(ParamError::EmptyRange {
                min: self.min,
                max: self.max,
            });
        }
        if self.kind == Kind::Int {
            for (field, value) in [("min", self.min), ("max", self.max)] {
                if value.fract() != 0.0 {
                    return Err(ParamError::NotWhole { field, value });
                }
            }
        }
        if !(self.min..=self.max).contains(&self.start) {
            return Err(ParamError::StartOutside {
                start: self.start,
                min: self.min,
                max: self.max,
            });
        }
        for (field, value) in [("c_end", self.c_end), ("r_end", self.r_end)] {
            let Some(value) = value else { continue };
            if value <= 0.0 {
                return Err(ParamError::NotPositive { field, value });
            }
        }
        if self.scale == Scale::Log && self.min <= 0.0 {
            return Err(ParamError::LogNeedsPositive(self.min));
        }
        Ok(())
    }

    /// The value as the engine should receive it: whole numbers without a
    /// fraction, others in the shortest form that reads back exactly.
    #[must_use]
    pub fn format_value(&self, value: f64) -> String {
        match self.kind {
            Kind::Int => format!("{}", value.round()),
            Kind::Float => format!("{value}"),
        }
    }

    /// The value a user should keep: rounded to the nearest whole number
    /// for an integer parameter, and within `[min, max]`.
    #[must_use]
    pub fn settle(&self, value: f64) -> f64 {
        let value = clamp_to(value, self.min, self.max);
        match self.kind {
            Kind::Int => value.round(),
            Kind::Float => value,
        }
    }

    /// Where `value` lies in the range, from 0 at `min` to 1 at `max`, in the
    /// tuner's coordinate (logarithmic for a log-scale parameter).
    #[must_use]
    pub fn normalize(&self, value: f64) -> f64 {
        let (lo, hi) = self.internal_range();
        let u = self.coordinate(clamp_to(value, self.min, self.max));
        if hi > lo {
            clamp_to((u - lo) / (hi - lo), 0.0, 1.0)
        } else {
            0.0
        }
    }

    /// The tuner's coordinate of a value.
    pub(crate) fn coordinate(&self, value: f64) -> f64 {
        match self.scale {
            Scale::Linear => value,
            Scale::Log => value.ln(),
        }
    }

    /// The value of a tuner coordinate, within `[min, max]`.
    pub(crate) fn value_at(&self, u: f64) -> f64 {
        let value = match self.scale {
            Scale::Linear => u,
            Scale::Log => u.exp(),
        };
        clamp_to(value, self.min, self.max)
    }

    /// `[min, max]` in the tuner's coordinate.
    pub(crate) fn internal_range(&self) -> (f64, f64) {
        (self.coordinate(self.min), self.coordinate(self.max))
    }

    /// `c_end` in the tuner's coordinate, and `r_end` in the same, for the
    /// classic recipes (which refuse parameters without them; a missing
    /// one reads as OpenBench's usual range/20 and 0.002). For a log-scale
    /// parameter `c` is the half-width for which the probes around the
    /// start value, `start * e^c` and `start * e^-c`, lie `2 * c_end` apart.
    pub(crate) fn internal_c_end_r_end(&self) -> (f64, f64) {
        let c_end = self.c_end.unwrap_or((self.max - self.min) / 20.0);
        let r_end = self.r_end.unwrap_or(0.002);
        match self.scale {
            Scale::Linear => (c_end, r_end),
            Scale::Log => ((c_end / self.start).asinh(), r_end),
        }
    }

    /// The least half-width that keeps the plus and minus values of an
    /// integer parameter at least one whole step apart around `center`.
    pub(crate) fn min_int_half_width(&self, center: f64) -> f64 {
        match (self.kind, self.scale) {
            (Kind::Float, _) => 0.0,
            (Kind::Int, Scale::Linear) => 0.5,
            // e^center * (e^c - e^-c) >= 1
            (Kind::Int, Scale::Log) => (0.5 / center.exp()).asinh(),
        }
    }

    /// A value handed to an engine: stochastically rounded with the uniform
    /// number `u` for an integer parameter (`floor(value + u)`, which equals
    /// `value` in expectation), and within `[min, max]`.
    pub(crate) fn trial_value(&self, value: f64, u: f64) -> f64 {
        match self.kind {
            Kind::Int => clamp_to((value + u).floor(), self.min, self.max),
            Kind::Float => clamp_to(value, self.min, self.max),
        }
    }
}

impl fmt::Display for Param {
    /// The parameter's line in OpenBench's format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, {}, {}, {}, {}",
            self.name,
            self.kind.name(),
            self.start,
            self.min,
            self.max
        )?;
        if let (Some(c_end), Some(r_end)) = (self.c_end, self.r_end) {
            write!(f, ", {c_end}, {r_end}")?;
        }
        if self.scale == Scale::Log {
            f.write_str(", log")?;
        }
        Ok(())
    }
}

/// `x` within `[lo, hi]`; never panics (unlike `f64::clamp` with bad
/// bounds) and maps NaN to `lo`.
pub(crate) fn clamp_to(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}

/// What is wrong with one line of a parameter file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LineErrorKind {
    /// Not 5 or 7 comma-separated fields and an optional scale.
    #[error(
        "expected 5 or 7 fields (name, int|float, start, min, max[, c_end, r_end]) and an optional 'log', found {0}"
    )]
    FieldCount(usize),
    /// The second field is neither `int` nor `float`.
    #[error("the type must be int or float, not '{0}'")]
    UnknownKind(String),
    /// A numeric field does not parse.
    #[error("{field} is not a number: '{text}'")]
    BadNumber {
        /// `start`, `min`, `max`, `c_end` or `r_end`.
        field: &'static str,
        /// The text found.
        text: String,
    },
    /// The field after the numbers is neither `log` nor `linear`.
    #[error("the field after the numbers must be 'log' or 'linear', not '{0}'")]
    UnknownScale(String),
    /// The numbers parse but make no usable parameter.
    #[error(transparent)]
    Invalid(#[from] ParamError),
    /// An earlier line has the same name.
    #[error("'{0}' is listed twice")]
    Duplicate(String),
}

/// One bad line of a parameter file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct LineError {
    /// The line number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub kind: LineErrorKind,
}

/// Every bad line of a parameter file.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamsFileError {
    /// The bad lines, in file order.
    pub lines: Vec<LineError>,
}

impl fmt::Display for ParamsFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParamsFileError {}

/// Parses a parameter file or the engine's `spsa` output: one parameter a
/// line, `name, int|float, start, min, max[, c_end, r_end][, log]`. Blank
/// lines and lines starting with `#` are skipped.
///
/// # Errors
/// [`ParamsFileError`] listing every bad line with its number; no
/// parameters are returned unless every line is good.
pub fn parse_params(text: &str) -> Result<Vec<Param>, ParamsFileError> {
    let lines = text.lines().enumerate().filter_map(|(index, raw)| {
        let line = raw.trim();
        (!line.is_empty() && !line.starts_with('#')).then(|| (index + 1, parse_line(line)))
    });
    collect_params(lines)
}

/// The parameters of numbered lines read elsewhere (a file by
/// [`parse_params`], an engine's `spsa` answer by the arena from the
/// protocol's typed messages), checking that no name comes twice.
///
/// # Errors
/// [`ParamsFileError`] listing every bad line with its number; no
/// parameters are returned unless every line is good.
pub fn collect_params(
    lines: impl IntoIterator<Item = (usize, Result<Param, LineErrorKind>)>,
) -> Result<Vec<Param>, ParamsFileError> {
    let mut params: Vec<Param> = Vec::new();
    let mut errors = Vec::new();
    for (line, parsed) in lines {
        let parsed = parsed.and_then(|param| {
            if params.iter().any(|p| p.name == param.name) {
                Err(LineErrorKind::Duplicate(param.name))
            } else {
                Ok(param)
            }
        });
        match parsed {
            Ok(param) => params.push(param),
            Err(kind) => errors.push(LineError { line, kind }),
        }
    }
    if errors.is_empty() {
        Ok(params)
    } else {
        Err(ParamsFileError { lines: errors })
    }
}

/// One line of a parameter file, already trimmed and not blank.
fn parse_line(line: &str) -> Result<Param, LineErrorKind> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    // 5 or 7 numbers' worth of fields, and an optional scale word.
    let has_scale = matches!(fields.len(), 6 | 8) && fields.last().is_some_and(|f| f.parse::<f64>().is_err());
    let numbers = fields.len() - usize::from(has_scale);
    if !matches!(numbers, 5 | 7) {
        return Err(LineErrorKind::FieldCount(fields.len()));
    }
    let kind = match fields[1].to_ascii_lowercase().as_str() {
        "int" => Kind::Int,
        "float" => Kind::Float,
        _ => return Err(LineErrorKind::UnknownKind(fields[1].to_string())),
    };
    let number = |index: usize, field: &'static str| {
        fields[index].parse::<f64>().map_err(|_| LineErrorKind::BadNumber {
            field,
            text: fields[index].to_string(),
        })
    };
    let start = number(2, "start")?;
    let min = number(3, "min")?;
    let max = number(4, "max")?;
    let (c_end, r_end) = if numbers == 7 {
        (Some(number(5, "c_end")?), Some(number(6, "r_end")?))
    } else {
        (None, None)
    };
    let scale = match has_scale.then(|| fields[numbers].to_ascii_lowercase()) {
        None => Scale::Linear,
        Some(word) if word == "linear" => Scale::Linear,
        Some(word) if word == "log" => Scale::Log,
        Some(_) => return Err(LineErrorKind::UnknownScale(fields[numbers].to_string())),
    };
    let param = Param {
        name: fields[0].to_string(),
        kind,
        start,
        min,
        max,
        c_end,
        r_end,
        scale,
    };
    param.validate()?;
    Ok(param)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_round_trips_through_display() {
        let param = Param::new("TimeSoft", Kind::Float, 1.5, 0.25, 4.0, 0.1, 0.002).and_then(Param::log_scale);
        let param = param.unwrap_or_else(|e| panic!("{e}"));
        let parsed = parse_params(&param.to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed, vec![param]);
        // c_end and r_end may be left out, with or without a scale.
        let plain = parse_params("x, float, 1.5, 0.25, 4, log\ny, int, 3, 0, 9").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (plain[0].c_end, plain[0].r_end, plain[0].scale),
            (None, None, Scale::Log)
        );
        assert_eq!(plain[1].to_string(), "y, int, 3, 0, 9");
        assert!(parse_params("x, int, 1, 0, 9, 1").is_err());
    }

    #[test]
    fn log_c_end_spans_twice_c_end_at_the_start() {
        let param = Param {
            scale: Scale::Log,
            ..Param::new("x", Kind::Float, 2.0, 0.5, 8.0, 0.3, 0.002).unwrap()
        };
        let (c, _) = param.internal_c_end_r_end();
        let u = param.coordinate(2.0);
        assert!(((u + c).exp() - (u - c).exp() - 0.6).abs() < 1e-12);
    }

    #[test]
    fn stochastic_rounding_and_settling_stay_in_range() {
        let param = Param::new("n", Kind::Int, 5.0, 1.0, 9.0, 1.0, 0.002).unwrap();
        assert_eq!(param.trial_value(9.7, 0.99), 9.0);
        assert_eq!(param.trial_value(0.2, 0.0), 1.0);
        assert_eq!(param.trial_value(4.3, 0.69), 4.0);
        assert_eq!(param.trial_value(4.3, 0.71), 5.0);
        assert_eq!(param.settle(4.5), 5.0);
        assert_eq!(param.settle(-3.0), 1.0);
        assert_eq!(param.format_value(7.0), "7");
        assert_eq!(param.normalize(5.0), 0.5);
    }
}
