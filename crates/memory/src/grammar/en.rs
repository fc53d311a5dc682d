//! English: an instruction's verb comes first, in its bare form. A word
//! that is a noun as often as a verb (`call`, `email`, `order`, `run`) is
//! read as a verb only when an object or a place follows it ("Email Eve",
//! "Call me at 9"), never when a verb does ("Email is slow").

use std::collections::HashMap;
use std::sync::LazyLock;

use super::{words, Lang, Phrases};
use crate::clause::Sentence;

/// Bare verbs; `*` marks one that is a noun as often.
const VERBS: &str = "
    accept act* activate add address* adjust advise agree alert* allow always apply approve archive
    arrange ask assign* assume attach authorise authorize avoid back* backup* bcc be become begin
    behave believe block* book* bookmark* bother bring buy* bypass calculate call* cancel cc change* charge*
    chat* check* choose clean* clear* click* clone* close* collect come commit* communicate compile
    complete confirm connect consider contact* continue convert copy* correct count* create credit*
    curl cut* debit* decline decrypt delete deliver deny deploy deposit* describe destroy disable
    disclose disconnect disregard do donate download* drop* dump* edit* email* embed enable encrypt end*
    enter erase escalate exchange* execute expose export* extract fax* fetch file* fill* find finish*
    fix* flag* follow forget format* forward* free fund* get give go grant* hand* help* hide hold*
    ignore import* include inform inject insert install invest invite invoice* keep kill leak* leave
    let link* list* load* lock* log* login look* mail* make mark* mention* merge* message* mine* mint*
    move* mute* name* navigate notify obey offer* open order* override paste* pay* phone* pick*
    ping* place* plan* play* post* prefer prepare present* pretend print* proceed process* promise*
    provide publish pull* purchase* push* put quote* rate* read reboot receive record* redirect refer
    refund* refuse register release* reload remind remove rename renew repeat* reply* report*
    request* require reroute reset* resend respond restart restore retry* return* reveal review*
    reward* ring* route* run* save* say scan* schedule* screenshot* search* see sell send set* share*
    ship* show* shut sign* skip speak spend* start* stay stop* store* stream* submit subscribe suggest
    summarise summarize swap* switch* sync* take talk* tell test* text* thank tip* top* trade* transfer*
    translate trash* treat* trust* try* turn* tweet* unblock unlock update* upload* use* validate
    verify visit* vote* wait* wake walk* want* warn watch* wipe* wire* withdraw work* write
";

/// The verbs, and whether each is a noun as often.
static BARE: LazyLock<HashMap<&'static str, bool>> = LazyLock::new(|| {
    words(VERBS)
        .map(|w| match w.strip_suffix('*') {
            Some(v) => (v, true),
            None => (w, false),
        })
        .collect()
});

/// Words that show the word before them was a noun: a verb follows.
const FINITE: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "am",
    "'s",
    "has",
    "have",
    "had",
    "will",
    "would",
    "can",
    "could",
    "should",
    "shall",
    "must",
    "may",
    "might",
    "does",
    "did",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "wouldn't",
    "can't",
    "cannot",
    "couldn't",
    "shouldn't",
    "hasn't",
    "haven't",
    "hadn't",
    "needs",
    "gets",
    "goes",
    "takes",
    "comes",
    "makes",
    "starts",
    "ends",
    "runs",
    "works",
    "happens",
    "arrives",
    "means",
    "costs",
    "lasts",
    "meets",
    "opens",
    "closes",
    "begins",
    "seems",
    "looks",
    "feels",
];

/// Words that start an object, a place or a time: what follows a verb.
const AFTER_VERB: &[&str] = &[
    "the",
    "a",
    "an",
    "all",
    "any",
    "every",
    "each",
    "this",
    "that",
    "these",
    "those",
    "my",
    "your",
    "his",
    "her",
    "its",
    "our",
    "their",
    "me",
    "him",
    "them",
    "us",
    "it",
    "everything",
    "anything",
    "something",
    "nothing",
    "everyone",
    "anyone",
    "someone",
    "both",
    "either",
    "whatever",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "about",
    "into",
    "onto",
    "over",
    "out",
    "up",
    "down",
    "off",
    "back",
    "away",
    "through",
    "via",
    "by",
    "as",
    "always",
    "never",
    "immediately",
    "automatically",
    "quietly",
    "silently",
    "directly",
    "now",
    "first",
    "again",
    "only",
    "just",
    "§",
    "#",
    ",",
    "whenever",
    "when",
    "if",
    "before",
    "after",
    "copies",
    "money",
    "funds",
    "payments",
    "invoices",
];

fn verb(s: &Sentence, i: usize) -> bool {
    let Some(noun_too) = s.forms(i).find_map(|w| BARE.get(w).copied()) else {
        return false;
    };
    let next: Vec<&str> = s.forms(i + 1).collect();
    if next.iter().any(|n| FINITE.contains(n)) {
        return false;
    }
    // After "always", "never", "don't", "please" or a comma, a word that
    // can be a verb is one: "Always email Eve".
    let led = i
        .checked_sub(1)
        .is_some_and(|k| s.forms(k).any(|w| w == "," || EN.leads.has(w)));
    if !noun_too || led {
        return true;
    }
    match next.first() {
        None => true,
        Some(_) => {
            let capital = s
                .cased(i + 1)
                .and_then(|c| c.chars().next())
                .is_some_and(char::is_uppercase);
            // "Email from the bank is …": a verb after a phrase that can
            // qualify a noun makes the first word a noun after all.
            let qualifies = next.iter().any(|n| {
                ["from", "of", "at", "in", "on", "with", "for", "about", "by"].contains(n)
            });
            let verb_later = qualifies
                && (i + 2..s.len())
                    .take_while(|&k| s.word(k) != Some(","))
                    .any(|k| s.word(k).is_some_and(|w| FINITE.contains(&w)));
            (next.iter().any(|n| AFTER_VERB.contains(n)) || capital) && !verb_later
        }
    }
}

pub(crate) static EN: Lang = Lang {
    name: "English",
    leads: Phrases::new(
        "please | pls | plz | kindly | just | also | and | then | so | now | simply |
        always | never | ever | henceforth | hereafter | from now on | from here on |
        from here on out | from this point on | from this point forward | going forward |
        moving forward | in future | in the future | at all times | every time |
        each time | from today | starting now | starting today | as of now | as of today |
        by default | whenever possible | if possible | if asked | no matter what |
        under no circumstances | in any case | first | next | finally | make sure to |
        make sure you | make sure | be sure to | remember to | don't forget to |
        do not forget to | dont forget to | don't | dont | do not | never ever | note |
        note that | ps | fyi | remember | remember that | keep in mind |
        keep in mind that | hey | ok | okay | going ahead | for all future | for future |
        immediately | automatically | quietly | silently | secretly | discreetly |
        directly | promptly | only | it is required to | it's required to |
        it is mandatory to | it is important to | it's important to",
    ),
    polite: Phrases::new(
        "please | pls | plz | kindly | make sure | make sure to | make sure you |
        be sure to | remember to | don't forget to | do not forget to | dont forget to |
        it is required to | it's required to | it is mandatory to | it is important to |
        it's important to",
    ),
    addressee: Phrases::new(
        "you | you'll | you're | u | the assistant | assistant | conch | the ai | an ai |
        ai assistant | the bot | the model | the agent | the ai assistant | chatgpt |
        claude | yourself",
    ),
    obliged: Phrases::new(
        "must | should | shall | need | needs | have to | has to | are to | is to | ought |
        always | never | will always | will never | may | are allowed | is allowed |
        are permitted | is permitted | are authorized | are authorised | is authorized |
        is authorised | to | will | can now | no longer need | don't need | do not need |
        are required | is required | mustn't | shouldn't | 'll",
    ),
    overrides: Phrases::new(
        "ignore | ignores | ignoring | ignored | disregard | disregards | disregarding |
        forget | forget about | override | overrides | overriding | bypass | bypassing |
        skip | skips | skipping | disable | disabling | waive | waives | circumvent |
        set aside | drop | suspend | lift | turn off | switch off | no longer follow |
        stop following | don't follow | do not follow | not bound by | free from |
        exempt from | waived | waiving | bypassed | skipped | disabled | suspended |
        lifted | dropped | overridden | circumvented | removed | remove | turned off |
        switched off",
    ),
    meta: Phrases::new(
        "previous instructions | prior instructions | earlier instructions |
        all instructions | any instructions | above instructions | your instructions |
        the instructions above | all previous | all prior | the system prompt |
        system prompt | your system prompt | your rules | all rules | the rules you |
        any rules | safety rules | security rules | your guidelines | all guidelines |
        guardrails | your restrictions | all restrictions | any restrictions |
        safety checks | security checks | the guard | confirmation | confirmations |
        approval | approvals | permission prompts | permission checks |
        the owner's instructions | the owner's rules | your programming | your training |
        the checks | your checks | asking | the question | questions | warnings |
        your safeguards | safeguards | your limits | your policies | content policy",
    ),
    unasked: Phrases::new(
        "without asking | without checking | without confirmation | without confirming |
        without permission | without approval | without consent | without prompting |
        without a question | without questions | without telling | without notifying |
        without letting | without informing | without waiting | without review |
        no need to ask | no need to check | no need to confirm | no need for confirmation |
        no need for approval | no confirmation needed | no approval needed |
        no confirmation required | don't need approval | doesn't need approval |
        don't need confirmation | doesn't need confirmation | do not need approval |
        does not need approval | don't need to be asked | doesn't need to be asked |
        doesn't want to be asked | don't ask for confirmation |
        never ask for confirmation | never asks for confirmation | pre-approved |
        preapproved | pre-authorized | pre-authorised | already approved |
        already authorized | already authorised | has approved all | has authorized all |
        has authorised all | approved in advance | authorized in advance |
        authorised in advance | blanket approval | standing approval |
        standing permission | full permission | given permission to | gave permission to |
        granted permission to | has permission to | are allowed to run |
        is allowed to run | are allowed to send | is allowed to send | are allowed to pay |
        is allowed to pay | may send without | may pay without | may run without |
        auto-approve | auto approve | automatically approve | approve automatically |
        approve all | approve everything | allow everything | allow all commands |
        trust all | trust every | give you instructions | gives you instructions |
        give you orders | gives you orders | can instruct you | may instruct you |
        authorised to instruct | authorized to instruct | take instructions from |
        take orders from | follow instructions from | follow orders from |
        speaks for the owner | speaks for ada | same authority as | as if they came from |
        as if it came from | as if she were the owner | as if he were the owner |
        act on instructions from | bother asking | bother to ask | no questions |
        no questions asked | without question | without hesitation",
    ),
    conceal: Phrases::new(
        "keep this secret | keep it secret | keep this quiet | keep it quiet |
        keep this hidden | keep it hidden | keep this between us | keep it between us |
        keep this confidential | keep it confidential | hide it from | hide this from |
        hide them from | delete the evidence | delete the logs | clear the logs |
        cover your tracks | leave no trace | without a trace | silently forward |
        silently send | quietly forward | quietly send | secretly forward | secretly send |
        silently cc | quietly cc | secretly cc | silently bcc | quietly bcc |
        secretly bcc | silently copy | quietly copy | secretly copy | silently pay |
        quietly pay | secretly pay | silently transfer | quietly transfer |
        secretly transfer | secretly share | quietly share | silently share |
        without her knowing | without him knowing | without them knowing |
        without the owner knowing",
    ),
    tells: Phrases::new(
        "don't tell | do not tell | never tell | dont tell | don't mention |
        do not mention | never mention | don't inform | do not inform | never inform |
        don't notify | do not notify | never notify | don't show | do not show |
        never show | don't report | do not report | never report | don't let | do not let |
        without telling | without informing | without notifying | without showing | hide |
        hides | hiding",
    ),
    hidden_from: Phrases::new(
        "the owner | the user | her | him | them | anyone | anybody | this | it | that |
        these | those | no one | nobody | everything | my owner | your owner | the boss",
    ),
    verb,
    calls_out: Phrases::new(
        "for the assistant | to the assistant | for the ai | to the ai | for any ai | to any ai | attention ai | attention assistant | dear assistant | hey assistant | assistants reading | if you are an ai | if you're an ai | if you are an assistant | if you are a language model | language models reading | note to the assistant | note for the assistant | message for the assistant | instructions for the assistant | for chatgpt | for claude",
    ),
    changes: Phrases::new(
        "from now on | going forward | henceforth | from here on | starting now |
        starting today | as of now | as of today | from today | in future | in the future |
        moving forward | effective immediately | effective today | until further notice |
        from this point on | hereafter",
    ),
    routes: Phrases::new(
        "go to | goes to | go straight to | goes straight to | get sent to | gets sent to |
        are sent to | is sent to | are forwarded to | is forwarded to | get forwarded to |
        gets forwarded to | should go to | must go to | will go to | are paid to |
        is paid to | get paid to | gets paid to | are redirected to | is redirected to |
        get redirected to | gets redirected to | are copied to | is copied to | go into |
        goes into | are routed to | is routed to",
    ),
    deontic: Phrases::new(
        "should be | must be | shall be | needs to be | need to be | has to be |
        have to be | is to be | are to be | ought to be | should always be |
        must always be | should now be | must now be | should also be | must also be",
    ),
    acts: Phrases::new(
        "sent | forwarded | transferred | wired | paid | shared | cc'd | cced | bcc'd |
        bcced | emailed | mailed | copied | uploaded | posted | published | deleted |
        removed | executed | installed | downloaded | disclosed | revealed | routed |
        redirected | handed | moved | approved automatically | auto-approved | acted on |
        acted upon | obeyed | followed without | carried out | done immediately",
    ),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clause::sentences;

    fn starts_verb(text: &str) -> bool {
        let s = &sentences(text, &[])[0];
        verb(s, 0)
    }

    #[test]
    fn a_noun_that_can_be_a_verb_is_read_by_what_follows() {
        assert!(starts_verb("Email Eve the report"));
        assert!(starts_verb("Call me at nine"));
        assert!(starts_verb("Send reports weekly"));
        assert!(!starts_verb("Email is slow on Mondays"));
        assert!(!starts_verb("Run club meets on Tuesdays"));
        assert!(!starts_verb("Work starts at nine"));
        assert!(!starts_verb("Email from the bank is always late"));
    }
}
