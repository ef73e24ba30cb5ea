"""Every prompt invent sends to an LLM.

Unless noted, the wording is the paper's, Appendix "Experimental setting"
(label app:setting of the paper's LaTeX source): "The following are
all the prompts used in our experiments."
"""

from __future__ import annotations

from collections.abc import Sequence

TASKS: tuple[str, ...] = ("qa", "mmlu", "gsm8k")

#: Appendix "Generating Responses", TriviaQA / SciQ / NQ.
QA_SUFFIX = "Answer concisely and return only the name."
#: Appendix "Generating Responses", MMLU (question + choices, same suffix as QA).
MMLU_SUFFIX = QA_SUFFIX
#: Appendix "Generating Responses", GSM8K.
GSM8K_SUFFIX = "Answer concisely and return only the result itself."

#: Appendix "ChatGPT-based paraphrasing"; temperature 0.7 ("LLM Configuration").
PARAPHRASE_TEMPLATE = "Please Provide {n} paraphrases for this sentence: {sentence}"
PARAPHRASE_TEMPERATURE = 0.7
#: Not in the paper: a system message for small local models, which otherwise echo the
#: sentence or answer it (GPT-3.5 needed none). ``paraphrase(system=None)`` sends none.
PARAPHRASE_SYSTEM = (
    "You rewrite sentences. Reply with a numbered list of rewordings of the user's sentence "
    "that use different words but keep its meaning. Do not answer the question."
)

#: One-paraphrase-per-request variant (not in the paper) for the small packaged
#: models: asked for a list of nine, Qwen2.5-0.5B mostly echoes the question,
#: answers it or drifts into another language; asked for one rewording at a time,
#: with two worked examples, it rewords reliably. The user turn keeps the paper's
#: wording with n = 1.
PARAPHRASE_ONE_SYSTEM = (
    "You reword questions. Reply with one reworded question only, with the same meaning. "
    "Never answer it."
)
PARAPHRASE_ONE_TEMPLATE = "Please Provide 1 paraphrase for this sentence: {sentence}"
PARAPHRASE_ONE_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Who wrote the novel Moby-Dick?", "Which author wrote the novel Moby-Dick?"),
    ("How many legs does a spider have?", "What is the number of legs on a spider?"),
)


#: Constructions the one-rewording requests rotate through (not in the paper).
#: Asked the same thing ten times, Qwen2.5-0.5B mostly echoes the question (97 of 152
#: arithmetic candidates were the question itself; scripts/measure_rewordings.py): the
#: variety GPT-3.5 put into one list of nine has to be asked for. Request k gets
#: construction k mod 8 — an instruction in the system message and two worked examples
#: of that very construction (the small model copies examples far better than it follows
#: instructions). Every example keeps the meaning exactly: the same wh-target, numbers
#: and qualifiers. A passive-voice construction was tried and dropped: the 0.5B turned
#: "How many …" into "By how many …" on most questions. Words of the examples that leak
#: into a rewording ("… ring in Paris") are caught by the gate's added-entity rule.
PARAPHRASE_CONSTRUCTIONS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Use other words for the verb and the nouns.",
        (
            ("Who wrote the novel Moby-Dick?", "Which author penned the novel Moby-Dick?"),
            ("How many legs does a spider have?", "How many limbs does a spider possess?"),
        ),
    ),
    (
        "Start the question with a different question word or phrase.",
        (
            ("How many legs does a spider have?", "What is the number of legs on a spider?"),
            (
                "Which river flows through Paris?",
                "What is the name of the river that flows through Paris?",
            ),
        ),
    ),
    (
        "Begin with 'Can you tell me'.",
        (
            ("Where is the Eiffel Tower?", "Can you tell me where the Eiffel Tower is?"),
            ("What is 12 divided by 4?", "Can you tell me what 12 divided by 4 is?"),
        ),
    ),
    (
        "Begin with 'Do you know'.",
        (
            ("Who painted the Mona Lisa?", "Do you know who painted the Mona Lisa?"),
            ("How many days are in a leap year?", "Do you know how many days are in a leap year?"),
        ),
    ),
    (
        "Begin with 'Tell me,'.",
        (
            ("Who painted the Mona Lisa?", "Tell me, who painted the Mona Lisa?"),
            ("How many days are in a leap year?", "Tell me, how many days are in a leap year?"),
        ),
    ),
    (
        "Use a more formal, precise style.",
        (
            (
                "How many days are in a leap year?",
                "What is the total number of days in a leap year?",
            ),
            ("What is 7 plus 5?", "What is the result of adding 7 and 5?"),
        ),
    ),
    (
        "Use short, plain words.",
        (
            ("What is the capital city of Australia?", "Which city is Australia's capital?"),
            (
                "What is the boiling point of water in Celsius?",
                "At what Celsius temperature does water boil?",
            ),
        ),
    ),
    (
        "Change the order of the parts of the question.",
        (
            ("In which year did the Titanic sink?", "The Titanic sank in which year?"),
            ("What is 9 times 6?", "9 times 6 is what?"),
        ),
    ),
)


def paraphrase_one_messages(sentence: str, construction: int | None = None) -> list[dict[str, str]]:
    """Chat messages asking for a single paraphrase, with worked examples first.

    ``construction``: ``None`` sends the plain instruction and
    :data:`PARAPHRASE_ONE_EXAMPLES`; an int ``k`` asks for construction
    ``k mod len(PARAPHRASE_CONSTRUCTIONS)`` with its own two examples.
    """
    system, examples = PARAPHRASE_ONE_SYSTEM, PARAPHRASE_ONE_EXAMPLES
    if construction is not None:
        how, examples = PARAPHRASE_CONSTRUCTIONS[construction % len(PARAPHRASE_CONSTRUCTIONS)]
        system = f"{system} {how}"
    msgs = [{"role": "system", "content": system}]
    for q, a in examples:
        msgs.append({"role": "user", "content": PARAPHRASE_ONE_TEMPLATE.format(sentence=q)})
        msgs.append({"role": "assistant", "content": a})
    msgs.append(
        {"role": "user", "content": PARAPHRASE_ONE_TEMPLATE.format(sentence=sentence.strip())}
    )
    return msgs


#: Appendix "Correctness Evaluation"; temperature 0 ("LLM Configuration").
CORRECTNESS_TEMPLATE = (
    "Are the following two answers to my question Q semantically equivalent?\n"
    "Q: {question}\n"
    "A1: {standard_answer}\n"
    "A2: {answer}\n"
    "Please answer with a single word, either Yes or No."
)
CORRECTNESS_TEMPERATURE = 0.0

#: Appendix "VU Derivation": appended after the answer prompt (Verbalized Uncertainty baseline).
VERBALIZED_CONFIDENCE_SUFFIX = "And use a percentage to tell me your confidence in your answer."

#: P(True) baseline, not in the paper's appendix: the format of Kadavath et al. (2022),
#: "Language Models (Mostly) Know What They Know", Sec. 3 (self-evaluation).
P_TRUE_TEMPLATE = (
    "Question: {question}\n"
    "Proposed Answer: {answer}\n"
    "Is the proposed answer:\n"
    " (A) True\n"
    " (B) False\n"
    "The proposed answer is:"
)

#: Entailment judge for semantic-equivalence clustering (Semantic Entropy baseline,
#: Kuhn et al. 2023 / Farquhar et al. 2024 use an NLI model; with no NLI model offline,
#: the LLM judges, reading P("Yes") from the first token). Worded after the paper's
#: correctness prompt above.
ENTAILMENT_TEMPLATE = (
    "Question: {question}\n"
    "Answer 1: {answer1}\n"
    "Answer 2: {answer2}\n"
    "Does Answer 1 mean the same as Answer 2 as an answer to the question (does each "
    "entail the other)? Please answer with a single word, either Yes or No."
)


#: Rewording check (ours, not in the paper): the rewording model is asked whether a
#: rewording the rules could not judge asks for the same answer (perturb.same_question);
#: worded after the paper's correctness prompt, temperature 0.
SAME_QUESTION_TEMPLATE = (
    "Question 1: {question}\n"
    "Question 2: {rewording}\n"
    "Do Question 1 and Question 2 ask for exactly the same answer? "
    "Please answer with a single word, either Yes or No."
)
SAME_QUESTION_MAX_TOKENS = 3


def _join(question: str, suffix: str) -> str:
    question = question.strip()
    return f"{question} {suffix}" if question else suffix


def format_choices(choices: Sequence[str]) -> str:
    """MMLU choices as ``A. …`` lines (the paper appends them to the question)."""
    letters = "ABCDEFGHIJ"
    if len(choices) > len(letters):
        raise ValueError(f"at most {len(letters)} choices are supported, got {len(choices)}")
    return "\n".join(f"{letters[i]}. {str(c).strip()}" for i, c in enumerate(choices))


def answer_prompt(question: str, task: str = "qa", choices: Sequence[str] | None = None) -> str:
    """The answer prompt of the paper's appendix for ``task``.

    Parameters
    ----------
    question
        The (original or perturbed) question.
    task
        ``"qa"`` (TriviaQA, SciQ, NQ), ``"mmlu"`` (needs ``choices``) or ``"gsm8k"``.
    choices
        MMLU answer options, appended to the question.

    Returns
    -------
    ``"{question} Answer concisely and return only the name."`` and variants.
    """
    if task == "qa":
        return _join(question, QA_SUFFIX)
    if task == "mmlu":
        if not choices:
            raise ValueError("task 'mmlu' needs choices (the answer options)")
        return f"{question.strip()}\n{format_choices(choices)}\n{MMLU_SUFFIX}"
    if task == "gsm8k":
        return _join(question, GSM8K_SUFFIX)
    raise ValueError(f"unknown task {task!r}: choose one of {', '.join(TASKS)}")


def paraphrase_prompt(sentence: str, n: int = 9) -> str:
    """``Please Provide {n} paraphrases for this sentence: {sentence}`` (paper, app:setting)."""
    if n < 1:
        raise ValueError(f"number of paraphrases must be >= 1, got {n}")
    return PARAPHRASE_TEMPLATE.format(n=n, sentence=sentence.strip())


def correctness_prompt(question: str, standard_answer: str, answer: str) -> str:
    """The paper's semantic-equivalence correctness judge (answer Yes/No)."""
    return CORRECTNESS_TEMPLATE.format(
        question=question.strip(),
        standard_answer=str(standard_answer).strip(),
        answer=str(answer).strip(),
    )


def verbalized_confidence_prompt(
    question: str, task: str = "qa", choices: Sequence[str] | None = None
) -> str:
    """Answer prompt followed by the VU suffix (paper, "VU Derivation")."""
    return f"{answer_prompt(question, task, choices)} {VERBALIZED_CONFIDENCE_SUFFIX}"


def p_true_prompt(question: str, answer: str) -> str:
    """Kadavath et al. (2022) self-evaluation prompt; P(True) = P(first token "A")."""
    return P_TRUE_TEMPLATE.format(question=question.strip(), answer=str(answer).strip())


def entailment_prompt(question: str, answer1: str, answer2: str) -> str:
    """Yes/No judge of whether two answers to ``question`` are semantically equivalent."""
    return ENTAILMENT_TEMPLATE.format(
        question=question.strip(), answer1=str(answer1).strip(), answer2=str(answer2).strip()
    )


#: Directed entailment judge (LUQ / KLE / DegMat weights with the LLM judge; not in the
#: paper): does the premise answer imply the hypothesis? Worded like ENTAILMENT_TEMPLATE.
DIRECTED_ENTAILMENT_TEMPLATE = (
    "Question: {question}\n"
    "Answer 1: {premise}\n"
    "Answer 2: {hypothesis}\n"
    "If Answer 1 is true, must Answer 2 also be true as an answer to the question? "
    "Please answer with a single word, either Yes or No."
)


def directed_entailment_prompt(question: str, premise: str, hypothesis: str) -> str:
    """Yes/No judge of whether ``premise`` entails ``hypothesis`` (one direction)."""
    return DIRECTED_ENTAILMENT_TEMPLATE.format(
        question=question.strip(), premise=str(premise).strip(), hypothesis=str(hypothesis).strip()
    )


def same_question_prompt(question: str, rewording: str) -> str:
    """The rewording check's question to the rewording model (:data:`SAME_QUESTION_TEMPLATE`)."""
    return SAME_QUESTION_TEMPLATE.format(question=question.strip(), rewording=rewording.strip())
