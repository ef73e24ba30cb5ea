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


def paraphrase_one_messages(sentence: str) -> list[dict[str, str]]:
    """Chat messages asking for a single paraphrase, with the worked examples first."""
    msgs = [{"role": "system", "content": PARAPHRASE_ONE_SYSTEM}]
    for q, a in PARAPHRASE_ONE_EXAMPLES:
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
