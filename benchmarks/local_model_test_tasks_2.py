"""Second unseen test set for the embedded model's tool use (`local:smollm2`).

Written by someone other than the person tuning the tool-choice rule, after the first
test set (`local_model_test_tasks.py`) had been used; never used to tune anything, and
evaluated once. Tools and data are those of `make_tools`, `WEATHER`, `RATES` and
`FILES` in `benchmarks/local_model.py`.

Each entry is (kind, prompt, tools offered, expected tool or None, expected substring
in the final answer or None).
"""

TEST_TASKS_2: list[tuple[str, str, list[str], str | None, str | None]] = [
    # ── single: one tool offered, and it is needed ──
    ("single", "what's 58 times 14", ["calculator"], "calculator", None),
    (
        "single",
        "Can you work out 2.5 percent of 18000 for me?",
        ["calculator"],
        "calculator",
        None,
    ),
    (
        "single",
        "I walked 3.2 km on Monday, 4.5 on Tuesday and 6 on Wednesday. Total distance?",
        ["calculator"],
        "calculator",
        None,
    ),
    (
        "single",
        "I'm hanging laundry out to dry in Paris, is the weather any good for it?",
        ["get_weather"],
        "get_weather",
        None,
    ),
    ("single", "any snow in oslo at the moment?", ["get_weather"], "get_weather", None),
    (
        "single",
        "My sister lives in Tokyo and I'm about to call her - what's the weather like over there?",
        ["get_weather"],
        "get_weather",
        None,
    ),
    (
        "single",
        "for a bug report I need whatever is written in version.txt",
        ["read_file"],
        "read_file",
        None,
    ),
    (
        "single",
        "Read me back my notes.txt, I can't remember what I wrote down this morning.",
        ["read_file"],
        "read_file",
        None,
    ),
    (
        "single",
        "topping up a transit card for my trip, turn 500 EUR into JPY for me",
        ["convert_currency"],
        "convert_currency",
        None,
    ),
    (
        "single",
        "how many pounds sterling would I get for 220 euros",
        ["convert_currency"],
        "convert_currency",
        None,
    ),
    (
        "single",
        "count words: to be or not to be that is the question",
        ["word_count"],
        "word_count",
        None,
    ),
    (
        "single",
        "My abstract has a word limit. Can you count the words in this: We present a simple "
        "method for estimating river flow from satellite images.",
        ["word_count"],
        "word_count",
        None,
    ),
    # ── choice: all five tools offered, exactly one is needed ──
    (
        "choice",
        "(250 + 130) / 4 = ?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "calculator",
        None,
    ),
    (
        "choice",
        "how much is 12 times 365",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "calculator",
        None,
    ),
    (
        "choice",
        "A recipe needs 180 g of flour per batch and I want to make 7 batches. How much "
        "flour do I need in total?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "calculator",
        None,
    ),
    (
        "choice",
        "my flight lands in oslo tonight, should I pack a warm coat? what's it doing there now",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "get_weather",
        None,
    ),
    (
        "choice",
        "Should I bring sunglasses for my walk in Paris this afternoon? What's it like out "
        "there currently?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "get_weather",
        None,
    ),
    (
        "choice",
        "heading out for dinner in tokyo, do i need a jacket? check the current conditions",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "get_weather",
        None,
    ),
    (
        "choice",
        "Can you load notes.txt and read it out to me?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "read_file",
        None,
    ),
    (
        "choice",
        "please read version.txt, I'm filling out a support ticket",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "read_file",
        None,
    ),
    (
        "choice",
        "I'm buying a jacket from an American site that prices in dollars. My budget is 150 "
        "euros, how much is that in USD?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "convert_currency",
        None,
    ),
    (
        "choice",
        "15000 EUR to yen pls",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "convert_currency",
        None,
    ),
    (
        "choice",
        "how many words is my bio? 'Amateur baker, weekend cyclist and full-time software "
        "tester based in Leeds.'",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "word_count",
        None,
    ),
    (
        "choice",
        "Count the words in the following text for me: Please remember to lock the back "
        "door and feed the cat before you leave.",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        "word_count",
        None,
    ),
    # ── none: all five tools offered, no tool is needed ──
    (
        "none",
        "hi there, can I ask you something?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "cheers, that's exactly what I needed",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "What's the tallest mountain in Africa?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "explain how rainbows form",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "write me a short poem about autumn leaves falling",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Should I learn guitar or piano first?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "how do i politely turn down a wedding invitation without offending anyone",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "What does the word 'ephemeral' mean?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "tell me a fun fact about octopuses",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "I'm moving to Oslo for work in January. How do people there cope with the long "
        "dark winters?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "My grandma turns 90 next month, any gift ideas?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "What's the difference between a .txt file and a .docx file?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Is it rude to recline your seat on a plane?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Who painted the Mona Lisa?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "do you ever get bored talking to people all day?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    (
        "none",
        "Should I pay off my credit card first or put money into savings?",
        ["calculator", "get_weather", "read_file", "convert_currency", "word_count"],
        None,
        None,
    ),
    # ── two_step: one tool offered; the answer must repeat part of its result ──
    (
        "two_step",
        "We're taking 864 students on a trip and each coach holds 32. How many coaches is "
        "that exactly?",
        ["calculator"],
        "calculator",
        "27",
    ),
    (
        "two_step",
        "I bought 3 notebooks at 4.50 each and a pen for 2.25, what did I spend in total?",
        ["calculator"],
        "calculator",
        "15.75",
    ),
    (
        "two_step",
        "Before I go skiing in Oslo, tell me the current temperature there.",
        ["get_weather"],
        "get_weather",
        "-3",
    ),
    (
        "two_step",
        "check tokyo's weather and tell me whether I'll need an umbrella",
        ["get_weather"],
        "get_weather",
        "rain",
    ),
    (
        "two_step",
        "Look in notes.txt - is there someone I'm supposed to phone today?",
        ["read_file"],
        "read_file",
        "Ana",
    ),
    (
        "two_step",
        "A customer asks which version they should update to. Check version.txt and write "
        "them a one-line reply.",
        ["read_file"],
        "read_file",
        "4.2.7",
    ),
    (
        "two_step",
        "I'm paying a London supplier 30 euros, how many GBP is that?",
        ["convert_currency"],
        "convert_currency",
        "25.5",
    ),
    (
        "two_step",
        "my tagline has to be under ten words, how many does this one have? Fresh bread "
        "baked every morning in the heart of town",
        ["word_count"],
        "word_count",
        "10",
    ),
]
