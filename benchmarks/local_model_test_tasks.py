"""Unseen test set for the embedded model's tool use (`local:smollm2`).

Written by someone other than the person tuning the tool-choice rule, never used to
tune anything, and evaluated once. Tools and data are those of `make_tools`,
`WEATHER`, `RATES` and `FILES` in `benchmarks/local_model.py`.

Each entry is (kind, prompt, tools offered, expected tool or None, expected substring
in the final answer or None).
"""

TEST_TASKS: list[tuple[str, str, list[str], str | None, str | None]] = [
    # ── single: one tool offered, and it is needed ──
    ("single", "whats 348 plus 1276", ["calculator"], "calculator", None),
    (
        "single",
        "I need to split a bill of 186 between 6 people, how much does each person pay?",
        ["calculator"],
        "calculator",
        None,
    ),
    ("single", "Calculate (125 + 375) * 4 please", ["calculator"], "calculator", None),
    ("single", "hows it looking outside in tokyo today", ["get_weather"], "get_weather", None),
    (
        "single",
        "Check the current weather in Oslo for me before I head out.",
        ["get_weather"],
        "get_weather",
        None,
    ),
    (
        "single",
        "I forgot which build we shipped, can you open version.txt?",
        ["read_file"],
        "read_file",
        None,
    ),
    ("single", "pull up notes.txt please", ["read_file"], "read_file", None),
    ("single", "75 eur in gbp?", ["convert_currency"], "convert_currency", None),
    (
        "single",
        "I have 300 euros, how many dollars is that?",
        ["convert_currency"],
        "convert_currency",
        None,
    ),
    (
        "single",
        "Exchanging 45 euros at the airport when I land in Tokyo, roughly how many JPY is that?",
        ["convert_currency"],
        "convert_currency",
        None,
    ),
    (
        "single",
        "word count please: She sells sea shells by the sea shore",
        ["word_count"],
        "word_count",
        None,
    ),
    (
        "single",
        "Give me the word count of this paragraph: The meeting has been moved to Thursday "
        "afternoon because the projector in room four is broken.",
        ["word_count"],
        "word_count",
        None,
    ),
    # ── choice: all five tools offered, exactly one is needed ──
    (
        "choice",
        "what's 7.5 percent of 2400",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "calculator",
        None,
    ),
    (
        "choice",
        "Quick: 9876 - 5432?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "calculator",
        None,
    ),
    (
        "choice",
        "If I drive 420 km on 28 litres of fuel, how many km per litre is that?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "calculator",
        None,
    ),
    (
        "choice",
        "I'm about to go for a run along the Seine in Paris. What are conditions like outside?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "get_weather",
        None,
    ),
    (
        "choice",
        "I land in Tokyo in a couple of hours, what's the weather doing there right now?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "get_weather",
        None,
    ),
    (
        "choice",
        "cat version.txt",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "read_file",
        None,
    ),
    (
        "choice",
        "what's written in my notes.txt? I think I left myself a reminder",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "read_file",
        None,
    ),
    (
        "choice",
        "what is 1250 euros in british pounds",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "convert_currency",
        None,
    ),
    (
        "choice",
        "How much is €60 in USD?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "convert_currency",
        None,
    ),
    (
        "choice",
        "Is this tweet under 20 words? 'Just finished my first marathon and I can't feel "
        "my legs but I'm so happy right now'",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "word_count",
        None,
    ),
    (
        "choice",
        "how long is this in words: Lorem ipsum dolor sit amet consectetur adipiscing elit",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "word_count",
        None,
    ),
    (
        "choice",
        "I need the number of words in my cover letter opening: I am writing to apply for "
        "the junior designer position advertised on your website.",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "word_count",
        None,
    ),
    # ── none: all five tools offered, no tool is needed ──
    (
        "none",
        "hey there",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "thank you so much, that really helped!",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "How do I boil an egg so the yolk stays runny?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "What's the difference between a virus and a bacterium?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "write a limerick about a clumsy penguin",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Which do you think is better for a beginner, Python or JavaScript?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "I've been feeling really stressed at work lately. Any advice?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "When did the Berlin Wall fall?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "I'm visiting Paris next spring - which museums should I not miss?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Any tips for keeping my notes organised? Right now I just dump everything into "
        "one big text file.",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "can you explain what inflation is in simple terms",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "how many continents are there",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Write a two-line birthday message for my sister, she's turning 30.",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "good night, talk tomorrow",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "What should I cook for dinner tonight? I have rice, eggs and some spinach.",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Why do cats purr?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    # ── two_step: one tool offered; the answer must repeat part of its result ──
    ("two_step", "what is 1350 divided by 27", ["calculator"], "calculator", "50"),
    (
        "two_step",
        "The invoice is 48 items at 25 each plus a 13 shipping fee. What's the total?",
        ["calculator"],
        "calculator",
        "1213",
    ),
    (
        "two_step",
        "what should I wear in tokyo today? check the weather first and tell me the temperature",
        ["get_weather"],
        "get_weather",
        "12",
    ),
    (
        "two_step",
        "Planning a picnic in Paris this afternoon. Look up the weather and tell me how "
        "many degrees it is.",
        ["get_weather"],
        "get_weather",
        "18",
    ),
    (
        "two_step",
        "open notes.txt and tell me what I need to buy",
        ["read_file"],
        "read_file",
        "milk",
    ),
    (
        "two_step",
        "I need to put the current release number in a changelog heading. It's in "
        "version.txt, what is it?",
        ["read_file"],
        "read_file",
        "4.2.7",
    ),
    (
        "two_step",
        "My hotel in Japan costs 40 euros a night. What's that in yen?",
        ["convert_currency"],
        "convert_currency",
        "6400",
    ),
    (
        "two_step",
        "Tell me how many words this line has: Every morning I walk my dog along the river "
        "before work.",
        ["word_count"],
        "word_count",
        "11",
    ),
]
