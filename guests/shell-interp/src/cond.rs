//! Conditional expressions: `[[ ... ]]` (patterns, `=~` with `BASH_REMATCH`, no splitting)
//! and the `test`/`[` builtin (its arguments parsed by brush-parser), sharing the file, string
//! and integer predicates.

use brush_parser::ast::{self, BinaryPredicate as B, UnaryPredicate as U};

use crate::expand::{Expand, ExpandError, Frame};
use shell_base::pattern::{MatchOptions, Pattern};

/// A failed test: its message and status (2, or 1 for an arithmetic error in `[[ ]]`).
pub struct TestError(pub String, pub i32);

impl TestError {
    fn new(message: String) -> TestError {
        TestError(message, 2)
    }
}

impl From<ExpandError> for TestError {
    fn from(e: ExpandError) -> TestError {
        TestError::new(e.message)
    }
}

/// Conditional expressions, for every expansion [`Frame`].
// Futures of the single-threaded executor are never sent across threads.
#[allow(async_fn_in_trait)]
pub trait Conditions: Expand {
    /// `[[ expr ]]`.
    fn extended_test<'a>(
        &'a mut self,
        e: &'a ast::ExtendedTestExpr,
    ) -> shell_base::runtime::Task<'a, Result<bool, TestError>> {
        use ast::ExtendedTestExpr as E;
        Box::pin(async move {
            Ok(match e {
                E::And(a, b) => self.extended_test(a).await? && self.extended_test(b).await?,
                E::Or(a, b) => self.extended_test(a).await? || self.extended_test(b).await?,
                E::Not(a) => !self.extended_test(a).await?,
                E::Parenthesized(a) => self.extended_test(a).await?,
                E::UnaryTest(op, w) => {
                    let v = self.expand_string(&w.value).await?;
                    self.unary(op, &v).await?
                }
                E::BinaryTest(op, l, r) => {
                    let left = self.expand_string(&l.value).await?;
                    match op {
                        B::StringExactlyMatchesPattern | B::StringDoesNotExactlyMatchPattern => {
                            let text = self.expand_pattern(&r.value).await?;
                            let pattern = Pattern::new(
                                &text,
                                MatchOptions {
                                    extglob: true,
                                    nocase: self.shell_mut().shopt.nocasematch,
                                },
                            );
                            pattern.matches(&left) == matches!(op, B::StringExactlyMatchesPattern)
                        }
                        B::StringMatchesRegex | B::StringContainsSubstring => {
                            let re = self.expand_regex(&r.value).await?;
                            self.regex_match(&left, &re)?
                        }
                        _ => {
                            let right = self.expand_string(&r.value).await?;
                            self.binary(op, &left, &right, true)?
                        }
                    }
                }
            })
        })
    }

    /// `left =~ regex`: sets `BASH_REMATCH` (the match and its groups).
    fn regex_match(&mut self, left: &str, re: &str) -> Result<bool, TestError> {
        let pattern = if self.shell_mut().shopt.nocasematch {
            format!("(?i){re}")
        } else {
            re.to_string()
        };
        let regex = regex::Regex::new(&pattern).map_err(|_| TestError::new(String::new()))?;
        match regex.captures(left) {
            Some(c) => {
                let groups: Vec<(Option<crate::vars::Key>, String)> = c
                    .iter()
                    .map(|m| (None, m.map(|m| m.as_str().to_string()).unwrap_or_default()))
                    .collect();
                self.shell_mut().vars.remove("BASH_REMATCH");
                let _ = self.shell_mut().assign_array("BASH_REMATCH", groups, false);
                Ok(true)
            }
            None => {
                self.shell_mut().vars.remove("BASH_REMATCH");
                let _ = self
                    .shell_mut()
                    .assign_array("BASH_REMATCH", Vec::new(), false);
                Ok(false)
            }
        }
    }

    /// `test ARGS` / `[ ARGS ]`.
    async fn test_command(&mut self, args: &[String]) -> Result<bool, TestError> {
        let expr = brush_parser::test_command::parse(args).map_err(|_| {
            TestError::new(match args {
                [_, op, ..] if args.len() == 3 => format!("{op}: binary operator expected"),
                [op, _] => format!("{op}: unary operator expected"),
                _ => "too many arguments".into(),
            })
        })?;
        self.test_expr(&expr).await
    }

    fn test_expr<'a>(
        &'a mut self,
        e: &'a ast::TestExpr,
    ) -> shell_base::runtime::Task<'a, Result<bool, TestError>> {
        use ast::TestExpr as T;
        Box::pin(async move {
            Ok(match e {
                T::False => false,
                T::Literal(s) => !s.is_empty(),
                T::And(a, b) => self.test_expr(a).await? && self.test_expr(b).await?,
                T::Or(a, b) => self.test_expr(a).await? || self.test_expr(b).await?,
                T::Not(a) => !self.test_expr(a).await?,
                T::Parenthesized(a) => self.test_expr(a).await?,
                T::UnaryTest(op, v) => self.unary(op, v).await?,
                T::BinaryTest(op, l, r) => match op {
                    B::StringExactlyMatchesPattern => l == r,
                    B::StringDoesNotExactlyMatchPattern => l != r,
                    _ => self.binary(op, l, r, false)?,
                },
            })
        })
    }

    async fn unary(&mut self, op: &U, v: &str) -> Result<bool, TestError> {
        let path = self.shell_mut().path(v);
        // `/usr/bin/env` and the like stand for built-in commands (see `standard_path`).
        let standard = || self.standard_path(v).is_some();
        let meta = || std::fs::metadata(&path);
        Ok(match op {
            U::StringHasZeroLength => v.is_empty(),
            U::StringHasNonZeroLength => !v.is_empty(),
            U::FileExists => {
                meta().is_ok() || standard() || shell_base::registry::is_standard_dir(v)
            }
            U::FileExistsAndIsDir => {
                meta().is_ok_and(|m| m.is_dir())
                    || (meta().is_err() && shell_base::registry::is_standard_dir(v))
            }
            U::FileExistsAndIsRegularFile => meta().is_ok_and(|m| m.is_file()) || standard(),
            U::FileExistsAndIsSymlink => {
                std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink())
            }
            U::FileExistsAndIsNotZeroLength => meta().is_ok_and(|m| m.len() > 0),
            // The workspace does not refuse a read or a write for a file's mode, so whatever
            // exists can be read and written, as root's bash says of every file.
            U::FileExistsAndIsReadable | U::FileExistsAndIsWritable => meta().is_ok() || standard(),
            // Executable as root sees it: a directory, or any execute bit.
            U::FileExistsAndIsExecutable => {
                standard() || self.mode_is(&path, |m| m & 0o170000 == 0o040000 || m & 0o111 != 0)
            }
            // Whoever made a file in the workspace, the isolate's user may act as its owner.
            U::FileExistsAndOwnedByEffectiveUserId | U::FileExistsAndOwnedByEffectiveGroupId => {
                meta().is_ok() || standard()
            }
            U::FileExistsAndModifiedSinceLastRead => self.info_is(&path, |i| i.mtime > i.atime),
            // The type and the set-id and sticky bits are in the inode's mode, which the
            // host's stat gives (`wasi:filesystem` does not).
            U::FileExistsAndIsBlockSpecialFile => self.mode_is(&path, |m| m & 0o170000 == 0o060000),
            U::FileExistsAndIsCharSpecialFile => self.mode_is(&path, |m| m & 0o170000 == 0o020000),
            U::FileExistsAndIsFifo => self.mode_is(&path, |m| m & 0o170000 == 0o010000),
            U::FileExistsAndIsSocket => self.mode_is(&path, |m| m & 0o170000 == 0o140000),
            U::FileExistsAndIsSetuid => self.mode_is(&path, |m| m & 0o4000 != 0),
            U::FileExistsAndIsSetgid => self.mode_is(&path, |m| m & 0o2000 != 0),
            U::FileExistsAndHasStickyBit => self.mode_is(&path, |m| m & 0o1000 != 0),
            U::FdIsOpenTerminal => false,
            U::ShellOptionEnabled => self.option_enabled(v),
            U::ShellVariableIsSetAndAssigned => match v.split_once('[') {
                Some((name, rest)) => {
                    let index = rest.trim_end_matches(']');
                    if index == "@" || index == "*" {
                        self.shell_mut().values(name).is_some_and(|v| !v.is_empty())
                    } else {
                        let key = self.subscript(name, index).await?;
                        self.shell_mut().element(name, &key).is_some()
                    }
                }
                None => {
                    self.shell_mut().get(v).is_some()
                        || self.shell_mut().values(v).is_some_and(|v| !v.is_empty())
                }
            },
            U::ShellVariableIsSetAndNameRef => self
                .shell_mut()
                .vars
                .get(v)
                .is_some_and(|var| var.attrs.nameref),
        })
    }

    /// Whether `path` exists and its mode (through links) passes `test`.
    fn mode_is(&self, path: &std::path::Path, test: impl Fn(u32) -> bool) -> bool {
        self.info_is(path, |i| test(i.mode))
    }

    /// Whether `path` exists and its inode (through links) passes `test`.
    fn info_is(
        &self,
        path: &std::path::Path,
        test: impl Fn(&shell_base::host::FileInfo) -> bool,
    ) -> bool {
        shell_base::host::current()
            .stat(&path.to_string_lossy(), true)
            .is_ok_and(|i| test(&i))
    }

    /// Whether `set -o NAME` is on.
    fn option_enabled(&self, name: &str) -> bool {
        self.shell()
            .options
            .listed()
            .iter()
            .any(|(n, on)| *n == name && *on)
    }

    /// Binary predicates other than patterns: strings, files, integers (in `[[ ]]` the
    /// integers are arithmetic expressions).
    fn binary(&mut self, op: &B, l: &str, r: &str, arithmetic: bool) -> Result<bool, TestError> {
        let modified = |p: &str| {
            std::fs::metadata(self.shell().path(p))
                .and_then(|m| m.modified())
                .ok()
        };
        Ok(match op {
            B::StringExactlyMatchesString | B::StringExactlyMatchesPattern => l == r,
            B::StringDoesNotExactlyMatchString | B::StringDoesNotExactlyMatchPattern => l != r,
            B::LeftSortsBeforeRight => l < r,
            B::LeftSortsAfterRight => l > r,
            B::FilesReferToSameDeviceAndInodeNumbers => {
                let (a, b) = (self.shell_mut().path(l), self.shell_mut().path(r));
                a.exists()
                    && shell_base::path::normalize(&a.to_string_lossy())
                        == shell_base::path::normalize(&b.to_string_lossy())
            }
            B::LeftFileIsNewerOrExistsWhenRightDoesNot => match (modified(l), modified(r)) {
                (Some(a), Some(b)) => a > b,
                (Some(_), None) => true,
                _ => false,
            },
            B::LeftFileIsOlderOrDoesNotExistWhenRightDoes => match (modified(l), modified(r)) {
                (Some(a), Some(b)) => a < b,
                (None, Some(_)) => true,
                _ => false,
            },
            B::StringMatchesRegex | B::StringContainsSubstring => l.contains(r),
            _ => {
                let (a, b) = (self.number(l, arithmetic)?, self.number(r, arithmetic)?);
                match op {
                    B::ArithmeticEqualTo => a == b,
                    B::ArithmeticNotEqualTo => a != b,
                    B::ArithmeticLessThan => a < b,
                    B::ArithmeticLessThanOrEqualTo => a <= b,
                    B::ArithmeticGreaterThan => a > b,
                    _ => a >= b,
                }
            }
        })
    }

    /// An integer operand: an arithmetic expression in `[[ ]]`, a plain number in `test`.
    fn number(&mut self, s: &str, arithmetic: bool) -> Result<i64, TestError> {
        if arithmetic {
            // bash names `[[` in an arithmetic error, which fails the test with status 1.
            return crate::arith::eval_text(self.shell_mut(), s).map_err(|e| {
                if crate::arith::is_unbound(&e) {
                    TestError::new(e)
                } else {
                    TestError(format!("[[: {e}"), 1)
                }
            });
        }
        s.trim()
            .parse::<i64>()
            .map_err(|_| TestError::new(format!("{s}: integer expression expected")))
    }
}

impl<F: Frame + ?Sized> Conditions for F {}
