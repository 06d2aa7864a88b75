//! What a name can score against a query, known before it is scored: the characters it holds
//! (a name lacking one of the query's cannot match) and a bound on nucleo's score from where
//! its characters stand (a name that cannot reach the best matches found so far is skipped).
//!
//! The bound follows nucleo-matcher's scoring with `Config::DEFAULT`: each character of the
//! query matched earns [`SCORE_MATCH`] and a bonus from the character before it in the name
//! (the first matched character twice its bonus); a run of matched characters earns at least
//! the bonus of the character that started it; gaps cost points. A test checks the bound
//! against nucleo's own scores, so a new version of nucleo that scores higher fails it.

/// What nucleo adds for each matched character.
const SCORE_MATCH: u32 = 16;
/// The bonus of a word character at the start of a name, or after white space.
const BONUS_START: u32 = 10;
/// The bonus of a non-word character (`.`, `_`, `@`, ...) or of a word character after one.
const BONUS_BOUNDARY: u32 = 8;
/// The most any other character earns: a camelCase hump, a digit after a letter, a run.
const BONUS_OTHER: u32 = 5;
/// The least a character matched right after the one before earns.
const BONUS_CONSECUTIVE: u32 = 4;
/// What nucleo takes for the first character of a gap between matched characters.
const PENALTY_GAP_START: u32 = 3;
/// The longest query looked for as a run in a name.
const LONGEST_RUN: usize = 64;

/// One bit for each ASCII letter (either case), digit, `_`, `.` and `@` that `text` holds; every
/// bit when it has other characters than ASCII (they may match a query's letters once
/// normalized). A name can match a query only if its mask covers the query's.
pub(super) fn char_mask(text: &str) -> u64 {
    text.bytes().fold(0, |mask, byte| mask | byte_mask(byte))
}

/// The bit of one byte in a [`char_mask`].
fn byte_mask(byte: u8) -> u64 {
    match byte {
        b'a'..=b'z' => 1 << (byte - b'a'),
        b'A'..=b'Z' => 1 << (byte - b'A'),
        b'0'..=b'9' => 1 << (26 + byte - b'0'),
        b'_' => 1 << 36,
        b'.' => 1 << 37,
        b'@' => 1 << 38,
        0x80.. => u64::MAX,
        _ => 1 << 39,
    }
}

/// Where a name's characters stand, for [`Bound::score`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Placing {
    /// Its first character, in lower case; 0 when any query could earn the start's bonus in
    /// it (it has white space, a delimiter such as `/` or `:`, or characters beyond ASCII).
    lead: u8,
    /// The characters (as a [`char_mask`]) at places after the first that earn
    /// [`BONUS_BOUNDARY`].
    boundaries: u64,
    /// The characters at places after the first that earn a hump's bonus ([`BONUS_OTHER`]): an
    /// upper-case letter after a lower-case one, a digit after anything but a digit.
    humps: u64,
}

impl Placing {
    /// Where the characters of `name` stand.
    pub(super) fn of(name: &str) -> Placing {
        let bytes = name.as_bytes();
        let any = |b: &u8| !b.is_ascii() || b.is_ascii_whitespace() || b.is_ascii_control() || b"/,:;|".contains(b);
        if bytes.iter().any(any) {
            return Placing { lead: 0, boundaries: u64::MAX, humps: u64::MAX };
        }
        let (mut boundaries, mut humps) = (0, 0);
        for pair in bytes.windows(2) {
            let (before, at) = (pair[0], pair[1]);
            if !before.is_ascii_alphanumeric() || !at.is_ascii_alphanumeric() {
                boundaries |= byte_mask(at);
            }
            if before.is_ascii_lowercase() && at.is_ascii_uppercase() || !before.is_ascii_digit() && at.is_ascii_digit()
            {
                humps |= byte_mask(at);
            }
        }
        Placing { lead: bytes.first().map_or(0, u8::to_ascii_lowercase), boundaries, humps }
    }
}

/// Where the characters of a set of names stand: the union of their [`Placing`]s, for a bound
/// on what any of them scores ([`Bound::best_of`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Placings {
    /// The first characters of the names, as a [`char_mask`] (every bit when one of them is
    /// placed with a `lead` of 0).
    leads: u64,
    /// The union of their `boundaries`.
    boundaries: u64,
    /// The union of their `humps`.
    humps: u64,
}

impl Placings {
    /// Adds a name placed as `placing`.
    pub(super) fn add(&mut self, placing: Placing) {
        self.leads |= if placing.lead == 0 { u64::MAX } else { byte_mask(placing.lead) };
        self.boundaries |= placing.boundaries;
        self.humps |= placing.humps;
    }
}

/// A query that a bound can be put on: plain characters (no pattern syntax), ASCII.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bound<'q> {
    /// The query.
    query: &'q str,
    /// Its first character, in lower case.
    first: u8,
    /// Its characters, as a [`char_mask`].
    chars: u64,
}

/// How a match ranks: a higher score first, then a shorter name.
pub(super) type Rank = (std::cmp::Reverse<u32>, u32);

impl<'q> Bound<'q> {
    /// The bound for `query`; `None` when it has characters of the pattern syntax (spaces, `!`,
    /// `^`, `'`, ...) or beyond ASCII.
    pub(super) fn of(query: &'q str) -> Option<Bound<'q>> {
        let plain = query.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'@'));
        plain.then(|| Bound {
            query,
            first: query.bytes().next().map_or(0, |b| b.to_ascii_lowercase()),
            chars: char_mask(query),
        })
    }

    /// The characters every match holds, as a [`char_mask`].
    pub(super) fn chars(&self) -> u64 {
        self.chars
    }

    /// The most a name placed as `placing` can score against the query. Every matched
    /// character's bonus is at most the best bonus of a place the query can match: the start
    /// only for the query's first character, places after the first for any of its characters.
    /// A query of one character earns nothing in the middle of a word: a name that holds it only
    /// there scores exactly [`SCORE_MATCH`], so that names of the same length tie and a search
    /// for a letter that starts no word skips every name longer than its cut unread.
    pub(super) fn score(&self, placing: Placing) -> u32 {
        let at_lead = placing.lead == 0 || placing.lead == self.first;
        self.score_at(at_lead, placing.boundaries, placing.humps)
    }

    /// The most any of the names placed as `placings` can score: at least each one's
    /// [`Bound::score`].
    pub(super) fn best_of(&self, placings: &Placings) -> u32 {
        self.score_at(placings.leads & byte_mask(self.first) != 0, placings.boundaries, placings.humps)
    }

    /// [`Bound::score`] of a name whose first character may earn the start's bonus (`at_lead`),
    /// with `boundaries` and `humps` as in [`Placing`].
    fn score_at(&self, at_lead: bool, boundaries: u64, humps: u64) -> u32 {
        let len = self.query.len() as u32;
        if len == 0 {
            return 0;
        }
        let bonus = if at_lead {
            BONUS_START
        } else if boundaries & self.chars != 0 {
            BONUS_BOUNDARY
        } else if len > 1 || humps & self.chars != 0 {
            BONUS_OTHER
        } else {
            0
        };
        SCORE_MATCH * len + bonus * (len + 1)
    }

    /// What a search does with a name of `len` bytes placed as `placing`, given the `cut` (the
    /// rank of the last match it keeps so far, if any) and, in a search that sweeps the names
    /// twice ([`Sweep`]), the `sweep`. `name` is read only when the bound does not decide.
    ///
    /// A name that holds the query as one run at a place that earns the bonus the bound assumed
    /// (its start, or after a `.`) earns it with every character: its score is the bound,
    /// known unscored. A name that holds it only with gaps is skipped when
    /// [`Bound::gapped_most`] leaves it below the cut. The sweep for runs skips a name
    /// without one; the sweep for gaps, a name with one. Names beyond ASCII may match a run
    /// once normalized: no gap is assumed in them.
    pub(super) fn judge<'n>(
        &self,
        placing: Placing,
        len: u32,
        name: impl FnOnce() -> &'n str,
        cut: Option<Rank>,
        sweep: Option<Sweep>,
    ) -> Verdict {
        let best = self.score(placing);
        let can_rank = |score: u32| cut.is_none_or(|cut| (std::cmp::Reverse(score), len) <= cut);
        if sweep == Some(Sweep::Gaps) {
            // The sweep for runs had the names not looked at for runs, and those that hold one:
            // theirs, the shortest piece holding the query is the query.
            if !can_rank(best.saturating_sub(PENALTY_GAP_START)) || !self.looks_for_runs(placing) {
                return Verdict::Skip;
            }
            return self.judge_gaps(name().as_bytes(), best, can_rank);
        }
        if !can_rank(best) {
            return Verdict::Skip;
        }
        let mut read = None;
        match self.run_in(placing, || *read.insert(name())) {
            Run::Earning => Verdict::Known(best),
            Run::Elsewhere => Verdict::Score,
            Run::None if sweep == Some(Sweep::Runs) => Verdict::Skip,
            // Without a cut the gaps decide nothing: the name is scored without measuring them.
            Run::None if cut.is_none() => Verdict::Score,
            Run::None => read.map_or(Verdict::Skip, |name| self.judge_gaps(name.as_bytes(), best, can_rank)),
        }
    }

    /// What a search does with `name`, whose bound is `best`, if it holds the query only with
    /// gaps: it is scored if it can rank ([`Bound::span_cost`] first: it is quicker to measure,
    /// and often enough; then [`Bound::gapped_most`]).
    fn judge_gaps(&self, name: &[u8], best: u32, can_rank: impl Fn(u32) -> bool) -> Verdict {
        let Some(span) = shortest_span(self.query.as_bytes(), name).filter(|&span| span > self.query.len()) else {
            return Verdict::Skip;
        };
        let ranks = can_rank(best.saturating_sub(self.span_cost(span)))
            && self.gapped_most(name, span).is_some_and(|most| can_rank(most.min(best)));
        if ranks { Verdict::Score } else { Verdict::Skip }
    }

    /// The least a name loses to gaps when the shortest piece of it that holds the query is
    /// `span` characters long: one gap at least, as wide as `span` less the query
    /// ([`gaps_cost`]).
    fn span_cost(&self, span: usize) -> u32 {
        gaps_cost(1, u32::try_from(span.saturating_sub(self.query.len())).unwrap_or(u32::MAX))
    }

    /// The most a name of ASCII that holds the query only with gaps can score, given the length
    /// of the shortest piece of it that holds the query (`span`, from [`shortest_span`]);
    /// `None` when it does not hold the query at all.
    ///
    /// Each character of the query can stand only between the first place it can take (the
    /// query matched from the start of the name, each character as early as it can) and the
    /// last (matched from the end). There it earns at most the best bonus of a place that holds
    /// it, or, right after the character before, what that one earned. Where no place lets it
    /// follow the character before, a gap comes first. The gaps together are at least `span`
    /// less the query wide ([`gaps_cost`]).
    fn gapped_most(&self, name: &[u8], span: usize) -> Option<u32> {
        let query = self.query.as_bytes();
        let len = query.len();
        if !(1..=LONGEST_RUN).contains(&len) || span < len {
            return None;
        }
        let is = |at: usize, byte: u8| name.get(at).is_some_and(|b| b.eq_ignore_ascii_case(&byte));
        // The first and the last place of each character.
        let (mut first, mut last) = ([0usize; LONGEST_RUN], [0usize; LONGEST_RUN]);
        let mut from = 0;
        for (at, &byte) in query.iter().enumerate() {
            first[at] = find(name, byte, from)?;
            from = first[at] + 1;
        }
        let mut end = name.len();
        for (at, &byte) in query.iter().enumerate().rev() {
            last[at] = find_before(name, byte, end)?;
            end = last[at];
        }
        let (mut earned, mut bonuses, mut gaps) = (0, 0, 0);
        for (at, &byte) in query.iter().enumerate() {
            let (mut own, mut follows) = (0, false);
            for place in (first[at]..=last[at]).filter(|&place| is(place, byte)) {
                own = own.max(bonus_at(name, place));
                follows |=
                    at > 0 && (first[at - 1] + 1..=last[at - 1] + 1).contains(&place) && is(place - 1, query[at - 1]);
            }
            earned = if follows { own.max(earned).max(BONUS_CONSECUTIVE) } else { own };
            // The first character earns its bonus twice.
            bonuses += if at == 0 { 2 * earned } else { earned };
            gaps += u32::from(at > 0 && !follows);
        }
        let cost = gaps_cost(gaps, u32::try_from(span - len).unwrap_or(u32::MAX));
        Some((SCORE_MATCH * len as u32 + bonuses).saturating_sub(cost))
    }

    /// How `name` (placed as `placing`) holds the query, for a search that looks for runs
    /// before gaps: [`Run::Earning`] (its score is the bound, known unscored, as
    /// [`Verdict::Known`]); [`Run::Elsewhere`], to be scored, also when runs are not looked for
    /// in it ([`Bound::has_runs`], names beyond ASCII); [`Run::None`] when it holds the query
    /// only with gaps if at all, so that it scores at most the bound less
    /// [`PENALTY_GAP_START`]. `name` is read only when a run is looked for.
    pub(super) fn run_in<'n>(&self, placing: Placing, name: impl FnOnce() -> &'n str) -> Run {
        if !self.looks_for_runs(placing) {
            return Run::Elsewhere;
        }
        self.run(placing, name().as_bytes())
    }

    /// Whether a name placed as `placing` is looked at for runs: the query has runs
    /// ([`Bound::has_runs`]) and the name is ASCII without white space or delimiters (a lead).
    fn looks_for_runs(&self, placing: Placing) -> bool {
        placing.lead != 0 && self.has_runs()
    }

    /// Whether the query is looked for as a run of characters in names: it has two characters
    /// or more (one character is no run), and at most [`LONGEST_RUN`] (a name and a query
    /// written to be alike would make a longer search quadratic).
    pub(super) fn has_runs(&self) -> bool {
        (2..=LONGEST_RUN).contains(&self.query.len())
    }

    /// Where `name` (placed as `placing`, a name of ASCII) holds the query as one run. A run
    /// earns the bound only in the query's case when it has capitals (smart case), and only in
    /// names short enough that nucleo scores them exactly (it falls back to a greedy match in
    /// long ones).
    fn run(&self, placing: Placing, name: &[u8]) -> Run {
        let query = self.query.as_bytes();
        if query.is_empty() || query.len() > name.len() {
            return Run::None;
        }
        let at_start = placing.lead == self.first;
        let exact = name.len() <= 256;
        let capitals = query.iter().any(u8::is_ascii_uppercase);
        let earns = |at: usize| match at {
            0 => at_start && name[0].is_ascii_alphanumeric(),
            _ => !at_start && (!name[at - 1].is_ascii_alphanumeric() || !name[at].is_ascii_alphanumeric()),
        };
        let mut found = Run::None;
        let (lower, upper) = (self.first, self.first.to_ascii_uppercase());
        for at in memchr::memchr2_iter(lower, upper, &name[..=name.len() - query.len()]) {
            let run = &name[at..at + query.len()];
            if !run.eq_ignore_ascii_case(query) {
                continue;
            }
            if exact && earns(at) && (!capitals || run == query) {
                return Run::Earning;
            }
            found = Run::Elsewhere;
        }
        found
    }
}

/// The least `gaps` gaps (at least one) that are `width` characters wide together (at least one
/// each) cost: [`PENALTY_GAP_START`] for the first character of a gap and one point for each next
/// one, but at most [`SCORE_MATCH`] for a gap, since a score does not fall below zero. The least
/// is with every gap one character wide but one, which takes the rest of the width.
fn gaps_cost(gaps: u32, width: u32) -> u32 {
    let gaps = gaps.max(1);
    let rest = width.max(gaps) - (gaps - 1);
    PENALTY_GAP_START * (gaps - 1) + rest.saturating_add(PENALTY_GAP_START - 1).min(SCORE_MATCH)
}

/// nucleo's bonus for the character at `at` of `name`, or more: a word character's from the
/// character before it; a character of white space, a delimiter or beyond ASCII, or a word
/// character after one, is given the most.
fn bonus_at(name: &[u8], at: usize) -> u32 {
    let plain = |byte: u8| byte.is_ascii_graphic() && !b"/,:;|".contains(&byte);
    let here = name.get(at).copied().unwrap_or(0);
    let Some(before) = at.checked_sub(1).and_then(|before| name.get(before).copied()) else {
        return BONUS_START;
    };
    if !plain(here) || here.is_ascii_alphanumeric() && !plain(before) {
        BONUS_START
    } else if !here.is_ascii_alphanumeric() || !before.is_ascii_alphanumeric() {
        BONUS_BOUNDARY
    } else if before.is_ascii_lowercase() && here.is_ascii_uppercase()
        || !before.is_ascii_digit() && here.is_ascii_digit()
    {
        BONUS_OTHER
    } else {
        0
    }
}

/// The length of the shortest piece of `name` that holds `query` (ignoring ASCII case) as a
/// subsequence; `None` when no piece does. Each piece found ends at the first place the query
/// can be completed from where the last piece started, and starts at the last place it can
/// start from there; the next search starts just after that start.
fn shortest_span(query: &[u8], name: &[u8]) -> Option<usize> {
    let (_, before_last) = query.split_last()?;
    let mut shortest: Option<usize> = None;
    let mut from = 0;
    loop {
        // Forward: where the query is completed, matching each of its characters in turn.
        let mut end = None;
        for &byte in query {
            let Some(at) = find(name, byte, end.map_or(from, |end| end + 1)) else { return shortest };
            end = Some(at);
        }
        let Some(end) = end else { return shortest };
        // Backward from there: the last place it can start.
        let mut start = end;
        for &byte in before_last.iter().rev() {
            let Some(at) = find_before(name, byte, start) else { return shortest };
            start = at;
        }
        let span = end - start + 1;
        shortest = Some(shortest.map_or(span, |s| s.min(span)));
        if span == query.len() {
            return shortest;
        }
        from = start + 1;
    }
}

/// The first place from `from` on where `name` holds `byte`, in either case.
fn find(name: &[u8], byte: u8, from: usize) -> Option<usize> {
    let found = memchr::memchr2(byte.to_ascii_lowercase(), byte.to_ascii_uppercase(), name.get(from..)?);
    found.map(|at| at + from)
}

/// The last place before `end` where `name` holds `byte`, in either case.
fn find_before(name: &[u8], byte: u8, end: usize) -> Option<usize> {
    memchr::memrchr2(byte.to_ascii_lowercase(), byte.to_ascii_uppercase(), name.get(..end)?)
}

/// What a search does with a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// It cannot rank among the matches kept: not scored.
    Skip,
    /// Its score is known: the bound.
    Known(u32),
    /// It is scored.
    Score,
}

/// One of the two sweeps of a search that looks for the query as a run of characters before
/// looking for it with gaps ([`Bound::judge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sweep {
    /// The names that hold it as a run (and those not looked at for runs).
    Runs,
    /// The names that hold it only with gaps, once every name that holds it as a run has been
    /// swept.
    Gaps,
}

/// Where a name holds the query as one run of characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Run {
    /// Nowhere.
    None,
    /// At a place that earns the bonus the bound assumed.
    Earning,
    /// Only elsewhere.
    Elsewhere,
}

#[cfg(test)]
mod tests {
    use super::*;
    use nucleo_matcher::{
        Config, Matcher, Utf32Str,
        pattern::{CaseMatching, Normalization, Pattern},
    };
    use proptest::prelude::*;

    /// nucleo's score of `name` against `query`, as workspace symbols asks for it.
    fn nucleo(query: &str, name: &str) -> Option<u32> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        pattern.score(Utf32Str::new(name, &mut Vec::new()), &mut Matcher::new(Config::DEFAULT))
    }

    #[test]
    fn the_bound_is_reached_by_a_run_after_a_dot_and_at_the_start() {
        let bound = |query: &str, name: &str| Bound::of(query).map(|b| b.score(Placing::of(name)));
        assert_eq!(nucleo("object", "crm.Object25__c"), bound("object", "crm.Object25__c"));
        assert_eq!(nucleo("crm", "crm.Object25__c"), bound("crm", "crm.Object25__c"));
        assert!(nucleo("obj", "crm.Oxbj").unwrap_or(0) < bound("obj", "crm.Oxbj").unwrap_or(0));
        assert_eq!(nucleo("obj", "crm.xObj"), bound("obj", "crm.xObj"), "a camelCase run");
        assert_eq!(bound("a b", "a b"), None, "pattern syntax");
    }

    #[test]
    fn a_name_without_the_query_as_a_run_cannot_reach_the_bound() {
        let Some(bound) = Bound::of("ob2") else { panic!("a plain query") };
        let (held, gapped) = ("crm.Ob2x", "crm.Ob3x2");
        let best = bound.score(Placing::of(held));
        assert_eq!(best, bound.score(Placing::of(gapped)));
        let cut = (std::cmp::Reverse(best), 9);
        assert_eq!(bound.judge(Placing::of(held), 8, || held, Some(cut), None), Verdict::Known(best));
        assert_eq!(nucleo("ob2", held), Some(best));
        assert_eq!(bound.judge(Placing::of(gapped), 9, || gapped, Some(cut), None), Verdict::Skip);
        assert!(nucleo("ob2", gapped).is_some_and(|score| score < best));
    }

    #[test]
    fn the_shortest_span_of_a_query_in_a_name() {
        assert_eq!(shortest_span(b"ob0", b"crm.Object10__c"), Some(8));
        assert_eq!(shortest_span(b"ab", b"a_a_b_ab"), Some(2));
        assert_eq!(shortest_span(b"ab", b"axxbab"), Some(2));
        assert_eq!(shortest_span(b"AB", b"xaYyb"), Some(4), "either case");
        assert_eq!(shortest_span(b"ab", b"ba"), None);
        assert_eq!(shortest_span(b"", b"ab"), None);
    }

    #[test]
    fn gaps_wider_than_the_cut_allows_are_not_scored() {
        let Some(bound) = Bound::of("object0") else { panic!("a plain query") };
        let (near, far) = ("crm.Object10__c.field.Name", "crm.Object1__c.field.Region0");
        let (near_score, far_score) = (nucleo("object0", near).unwrap_or(0), nucleo("object0", far).unwrap_or(0));
        assert!(0 < far_score && far_score < near_score, "{far_score} {near_score}");
        let cut = (std::cmp::Reverse(near_score), 40);
        assert_eq!(bound.judge(Placing::of(near), 26, || near, Some(cut), None), Verdict::Score);
        assert_eq!(bound.judge(Placing::of(far), 28, || far, Some(cut), None), Verdict::Skip);
    }

    #[test]
    fn a_gap_before_a_character_that_earns_no_bonus_is_seen() {
        // `0` follows a digit in every place it can take, and `c` cannot follow `0`: two gaps,
        // and `0` earns nothing. The bound of the name's placing misses both.
        let Some(bound) = Bound::of("obj0c") else { panic!("a plain query") };
        let name = "crm.Object10__c.instance.Record_100000";
        let score = nucleo("obj0c", name).unwrap_or(0);
        assert_eq!(
            shortest_span(b"obj0c", name.as_bytes()).and_then(|span| bound.gapped_most(name.as_bytes(), span)),
            Some(score)
        );
        assert!(score + 10 < bound.score(Placing::of(name)), "{score}");
    }

    #[test]
    fn a_long_query_is_not_looked_for_in_names() {
        let query = "a".repeat(LONGEST_RUN + 1);
        let Some(bound) = Bound::of(&query) else { panic!("a plain query") };
        let placing = Placing::of("crm.a");
        let cut = (std::cmp::Reverse(bound.score(placing)), 1);
        let verdict = bound.judge(placing, 1_000_000, || panic!("the name is not read"), Some(cut), None);
        assert_eq!(verdict, Verdict::Skip, "longer than the cut");
        let verdict = bound.judge(placing, 0, || panic!("the name is not read"), Some(cut), None);
        assert_eq!(verdict, Verdict::Score);
    }

    /// Names built from the characters that change a score (word and non-word characters,
    /// humps, digits; now and then delimiters, white space and a letter beyond ASCII), with a
    /// query: random, or a piece of the name in either case, so that runs are common.
    fn name_and_query() -> impl Strategy<Value = (String, String)> {
        let name = prop_oneof![
            4 => proptest::string::string_regex("[a-dA-D0-2._@-]{1,24}").expect("a valid regex"),
            1 => proptest::string::string_regex("[a-dA-D0-2._@/ :é-]{1,24}").expect("a valid regex"),
        ];
        (name, "[a-dA-D0-2._@]{0,6}", any::<(usize, usize, bool)>()).prop_map(|(name, random, (at, len, lower))| {
            let chars: Vec<char> = name.chars().collect();
            let at = at % chars.len();
            let piece: String = chars[at..(at + len % 7).min(chars.len())].iter().collect();
            let plain = piece.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@'));
            match (plain && !piece.is_empty(), lower) {
                (true, true) => (name, piece.to_ascii_lowercase()),
                (true, false) => (name, piece),
                (false, _) => (name, random),
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(8192))]

        #[test]
        fn nucleo_never_scores_a_name_above_its_bound((name, query) in name_and_query()) {
            let bound = Bound::of(&query).expect("a plain query");
            if let Some(score) = nucleo(&query, &name) {
                prop_assert!(score <= bound.score(Placing::of(&name)), "{query:?} in {name:?}: {score}");
            }
        }

        #[test]
        fn nucleo_never_scores_a_name_of_ascii_that_holds_the_query_only_with_gaps_above_its_most(
            name in "[a-cA-C0-2._@/ :-]{1,40}", query in "[a-cA-C0-2._@]{2,6}"
        ) {
            let bound = Bound::of(&query).expect("a plain query");
            let run = name.to_ascii_lowercase().contains(&query.to_ascii_lowercase());
            if let (false, Some(score)) = (run, nucleo(&query, &name)) {
                let most = shortest_span(query.as_bytes(), name.as_bytes()).and_then(|span| bound.gapped_most(name.as_bytes(), span));
                prop_assert!(most.is_some_and(|most| score <= most), "{query:?} in {name:?}: {score}, most {most:?}");
            }
        }

        #[test]
        fn the_bound_of_names_together_is_at_least_each_one_s(
            names in proptest::collection::vec(name_and_query(), 1..6), query in "[a-dA-D0-2._@]{0,6}"
        ) {
            let bound = Bound::of(&query).expect("a plain query");
            let mut placings = Placings::default();
            names.iter().for_each(|(name, _)| placings.add(Placing::of(name)));
            for (name, _) in &names {
                prop_assert!(bound.score(Placing::of(name)) <= bound.best_of(&placings), "{query:?} in {name:?}");
            }
        }

        #[test]
        fn a_name_is_skipped_only_below_the_cut_and_a_known_score_is_nucleo_s(
            (name, query) in name_and_query()
        ) {
            let bound = Bound::of(&query).expect("a plain query");
            let (placing, len) = (Placing::of(&name), name.len() as u32);
            let best = bound.score(placing);
            let run = bound.run_in(placing, || &name);
            let Some(score) = nucleo(&query, &name) else {
                prop_assert!(run != Run::Earning, "{query:?} in {name:?}: no match");
                return Ok(());
            };
            let span = shortest_span(query.as_bytes(), name.as_bytes());
            let most = span.and_then(|span| bound.gapped_most(name.as_bytes(), span)).unwrap_or(best).min(best);
            let most = most.min(best.saturating_sub(span.map_or(0, |span| bound.span_cost(span))));
            match run {
                Run::Earning => prop_assert_eq!(score, best, "{:?} in {:?}", query, name),
                Run::None => prop_assert!(score <= most && most + PENALTY_GAP_START <= best, "{query:?} in {name:?}: {score}, most {most}"),
                Run::Elsewhere => {}
            }
            // Cuts at the name's own rank and around where a run or a gap decides.
            let around = |at: u32| [at.saturating_sub(1), at, at + 1];
            for at in [score, best.saturating_sub(2), best, most].into_iter().flat_map(around) {
                let cut = (std::cmp::Reverse(at), len);
                // In one pass, or in the sweep that has the name (the sweep for runs has those
                // not looked at for runs), a name is skipped only below the cut.
                let gapped = run == Run::None;
                for (sweep, has) in [(None, true), (Some(Sweep::Runs), !gapped), (Some(Sweep::Gaps), gapped)] {
                    match bound.judge(placing, len, || &name, Some(cut), sweep) {
                        Verdict::Skip => prop_assert!(!has || at > score, "{query:?} in {name:?}: {score}, cut {at}, {sweep:?}"),
                        Verdict::Known(known) => prop_assert!(known == score && has, "{query:?} in {name:?}, cut {at}, {sweep:?}"),
                        Verdict::Score => prop_assert!(has, "{query:?} in {name:?}: scored twice, {sweep:?}"),
                    }
                }
            }
        }
    }
}
