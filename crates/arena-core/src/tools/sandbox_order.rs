//! The order in which one program's messages may come from the Python sandbox.
//!
//! A program reaches its sandbox's worker (Python's `js` module) and can post messages of its
//! own: a "final" with an answer of its choosing, then spin so that nothing else arrives. So
//! the page gives each program a key that only the worker's runner knows, and accepts a
//! message only with that key and only in the order a real program produces them: `started`,
//! then tool calls, each answered before the next, then one end (`done`, `raised` or `final`).
//! Anything else stops the program and ends its sandbox. Messages the frame or the page make
//! themselves (`unavailable`, `flood`) carry no key and end the program as a failed sandbox.

use super::python::WorkerReply;

/// Where a program is, as its messages say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The program was sent; `started` comes next.
    Sent,
    /// Started; a call or its end comes next.
    Running,
    /// A call was made; nothing comes until the page has answered it.
    Calling,
    /// It ended: nothing more comes.
    Ended,
}

/// What an accepted message means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The program started.
    Started,
    /// It asks for a tool call: the page runs it, answers, then calls [`ProgramMessages::answered`].
    Call,
    /// Its end (`done`, `raised`, `final`), or the sandbox failing under it.
    Ended,
    /// The runner found that an earlier program had changed it (what changed): this program
    /// was not run, and runs again in a fresh sandbox.
    Tampered(String),
}

/// A message no real program sends at this point: the sentence says which and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfOrder(pub String);

/// The messages of one program, checked one by one.
#[derive(Debug, Clone)]
pub struct ProgramMessages {
    key: String,
    /// CodeAct's programs call tools and end with `final`; the python tool's do neither.
    codeact: bool,
    stage: Stage,
    /// Number of the last call: the runner numbers them 1, 2, 3 … within a sandbox.
    last_call: Option<u32>,
}

impl ProgramMessages {
    pub fn new(key: impl Into<String>, codeact: bool) -> Self {
        Self {
            key: key.into(),
            codeact,
            stage: Stage::Sent,
            last_call: None,
        }
    }

    /// Judges the next message from the sandbox.
    pub fn read(&mut self, reply: &WorkerReply) -> Result<Step, OutOfOrder> {
        let kind = reply.kind.as_str();
        if matches!(kind, "unavailable" | "flood") {
            self.stage = Stage::Ended;
            return Ok(Step::Ended);
        }
        let out_of_order = |why: &str| {
            Err(OutOfOrder(format!(
                "a \"{}\" message {why}",
                kind.chars().take(20).collect::<String>()
            )))
        };
        if reply.key != self.key {
            return out_of_order("without the program's key, which only the sandbox's runner has");
        }
        match (self.stage, kind) {
            (Stage::Ended, _) => out_of_order("after the program's end"),
            (Stage::Calling, _) => out_of_order("while a tool call was unanswered"),
            (Stage::Sent, "started") => {
                self.stage = Stage::Running;
                Ok(Step::Started)
            }
            (Stage::Sent, "tampered") => {
                self.stage = Stage::Ended;
                Ok(Step::Tampered(reply.error.clone().unwrap_or_default()))
            }
            (Stage::Sent, _) => out_of_order("before the program started"),
            (Stage::Running, "call") if self.codeact => {
                if reply.call != self.last_call.map_or(reply.call, |n| n + 1) || reply.call == 0 {
                    return out_of_order("out of the runner's count of calls");
                }
                self.last_call = Some(reply.call);
                self.stage = Stage::Calling;
                Ok(Step::Call)
            }
            (Stage::Running, "done" | "raised") => {
                self.stage = Stage::Ended;
                Ok(Step::Ended)
            }
            (Stage::Running, "final") if self.codeact => {
                self.stage = Stage::Ended;
                Ok(Step::Ended)
            }
            (Stage::Running, _) => out_of_order("that this program cannot send"),
        }
    }

    /// The page answered the call it was asked for: the program runs on.
    pub fn answered(&mut self) {
        if self.stage == Stage::Calling {
            self.stage = Stage::Running;
        }
    }

    /// Whether the program has ended (nothing more is to be read for it).
    pub fn ended(&self) -> bool {
        self.stage == Stage::Ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(kind: &str, key: &str) -> WorkerReply {
        WorkerReply {
            kind: kind.into(),
            key: key.into(),
            ..WorkerReply::default()
        }
    }

    fn call(n: u32, key: &str) -> WorkerReply {
        WorkerReply {
            call: n,
            ..reply("call", key)
        }
    }

    #[test]
    fn a_real_program_s_messages_are_accepted_in_their_order() {
        let mut order = ProgramMessages::new("k1", true);
        assert_eq!(order.read(&reply("started", "k1")), Ok(Step::Started));
        assert_eq!(order.read(&call(4, "k1")), Ok(Step::Call));
        order.answered();
        assert_eq!(order.read(&call(5, "k1")), Ok(Step::Call));
        order.answered();
        assert!(!order.ended());
        assert_eq!(order.read(&reply("final", "k1")), Ok(Step::Ended));
        assert!(order.ended());

        let mut python = ProgramMessages::new("k2", false);
        assert_eq!(python.read(&reply("started", "k2")), Ok(Step::Started));
        assert_eq!(python.read(&reply("raised", "k2")), Ok(Step::Ended));
    }

    /// Attack review 6, row 8: a program posted a "final" (or the python tool's "done") of its
    /// own and then spun; the page took it for the end, and the time limit never applied.
    #[test]
    fn a_forged_end_without_the_key_is_refused_and_says_why() {
        for (codeact, kind) in [(true, "final"), (true, "done"), (false, "done")] {
            let mut order = ProgramMessages::new("secret", codeact);
            order.read(&reply("started", "secret")).unwrap();
            let refused = order.read(&reply(kind, "")).unwrap_err();
            assert_eq!(
                refused.0,
                format!("a \"{kind}\" message without the program's key, which only the sandbox's runner has")
            );
            // A guessed key is no better, and neither is the previous program's.
            assert!(order.read(&reply(kind, "secret2")).is_err());
            assert!(!order.ended());
        }
    }

    #[test]
    fn nothing_comes_after_the_end_or_before_the_start_or_beside_an_unanswered_call() {
        let mut order = ProgramMessages::new("k", true);
        assert!(order
            .read(&reply("final", "k"))
            .unwrap_err()
            .0
            .contains("before the program started"));
        order.read(&reply("started", "k")).unwrap();
        order.read(&call(1, "k")).unwrap();
        // A second call, or an end, before the page answered the first.
        assert!(order
            .read(&call(2, "k"))
            .unwrap_err()
            .0
            .contains("unanswered"));
        assert!(order
            .read(&reply("done", "k"))
            .unwrap_err()
            .0
            .contains("unanswered"));
        order.answered();
        // Calls are counted: one skipped or repeated is no runner's.
        assert!(order.read(&call(3, "k")).unwrap_err().0.contains("count"));
        assert!(order.read(&call(1, "k")).unwrap_err().0.contains("count"));
        assert_eq!(order.read(&reply("done", "k")), Ok(Step::Ended));
        assert!(order
            .read(&reply("done", "k"))
            .unwrap_err()
            .0
            .contains("after the program's end"));
        assert!(order
            .read(&call(2, "k"))
            .unwrap_err()
            .0
            .contains("after the program's end"));
    }

    #[test]
    fn the_python_tool_s_programs_neither_call_tools_nor_send_final() {
        let mut order = ProgramMessages::new("k", false);
        order.read(&reply("started", "k")).unwrap();
        assert!(order
            .read(&call(1, "k"))
            .unwrap_err()
            .0
            .contains("cannot send"));
        assert!(order
            .read(&reply("final", "k"))
            .unwrap_err()
            .0
            .contains("cannot send"));
        assert!(order.read(&reply("pong", "k")).is_err());
    }

    #[test]
    fn a_tampered_runner_is_said_before_the_start_and_a_failed_sandbox_ends_the_program() {
        let mut order = ProgramMessages::new("k", true);
        let tampered = WorkerReply {
            error: Some("builtins.len".into()),
            ..reply("tampered", "k")
        };
        assert_eq!(
            order.read(&tampered),
            Ok(Step::Tampered("builtins.len".into()))
        );
        assert!(order.ended());
        // Once started, "tampered" is no message of a runner's.
        let mut order = ProgramMessages::new("k", true);
        order.read(&reply("started", "k")).unwrap();
        assert!(order.read(&tampered).is_err());
        // The frame's own news and the page's flood end it, with no key.
        assert_eq!(order.read(&reply("unavailable", "")), Ok(Step::Ended));
        let mut order = ProgramMessages::new("k", false);
        assert_eq!(order.read(&reply("flood", "")), Ok(Step::Ended));
    }
}
