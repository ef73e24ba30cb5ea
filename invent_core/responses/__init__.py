"""One raw LLM reply to the forms every later step reads: the parsed answer, the cleaned response, the canonical form."""
