// placeholder until the lexer/preprocessor lands (owned by helper-1)
