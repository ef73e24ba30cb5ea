"""The data the answer rules read: element symbols, compounds, units, currencies, words.

Pure data, no logic: each table maps a written form to what it names, so a rule in
:mod:`invent_core.responses.kinds` or :mod:`invent_core.responses.quantities` reads
"CO2" and "carbon dioxide" as one substance, "°F" and "degrees Fahrenheit" as one unit,
"GBP" and "pound sterling" as one currency. Keys are lowercase unless a table says
otherwise (chemical symbols are case-sensitive: "Co" is cobalt, "CO" carbon monoxide).
"""

from __future__ import annotations

#: the 118 elements, symbol → name (IUPAC; "aluminium" and "sulfur" spellings, the
#: other spellings in ELEMENT_SPELLINGS)
ELEMENTS: dict[str, str] = dict(
    pair.split(":")
    for pair in (
        "H:hydrogen He:helium Li:lithium Be:beryllium B:boron C:carbon N:nitrogen O:oxygen "
        "F:fluorine Ne:neon Na:sodium Mg:magnesium Al:aluminium Si:silicon P:phosphorus "
        "S:sulfur Cl:chlorine Ar:argon K:potassium Ca:calcium Sc:scandium Ti:titanium "
        "V:vanadium Cr:chromium Mn:manganese Fe:iron Co:cobalt Ni:nickel Cu:copper Zn:zinc "
        "Ga:gallium Ge:germanium As:arsenic Se:selenium Br:bromine Kr:krypton Rb:rubidium "
        "Sr:strontium Y:yttrium Zr:zirconium Nb:niobium Mo:molybdenum Tc:technetium "
        "Ru:ruthenium Rh:rhodium Pd:palladium Ag:silver Cd:cadmium In:indium Sn:tin "
        "Sb:antimony Te:tellurium I:iodine Xe:xenon Cs:caesium Ba:barium La:lanthanum "
        "Ce:cerium Pr:praseodymium Nd:neodymium Pm:promethium Sm:samarium Eu:europium "
        "Gd:gadolinium Tb:terbium Dy:dysprosium Ho:holmium Er:erbium Tm:thulium Yb:ytterbium "
        "Lu:lutetium Hf:hafnium Ta:tantalum W:tungsten Re:rhenium Os:osmium Ir:iridium "
        "Pt:platinum Au:gold Hg:mercury Tl:thallium Pb:lead Bi:bismuth Po:polonium "
        "At:astatine Rn:radon Fr:francium Ra:radium Ac:actinium Th:thorium Pa:protactinium "
        "U:uranium Np:neptunium Pu:plutonium Am:americium Cm:curium Bk:berkelium "
        "Cf:californium Es:einsteinium Fm:fermium Md:mendelevium No:nobelium Lr:lawrencium "
        "Rf:rutherfordium Db:dubnium Sg:seaborgium Bh:bohrium Hs:hassium Mt:meitnerium "
        "Ds:darmstadtium Rg:roentgenium Cn:copernicium Nh:nihonium Fl:flerovium "
        "Mc:moscovium Lv:livermorium Ts:tennessine Og:oganesson"
    ).split()
)

#: other spellings of element names → the name in ELEMENTS
ELEMENT_SPELLINGS: dict[str, str] = {
    "aluminum": "aluminium",
    "sulphur": "sulfur",
    "cesium": "caesium",
    "quicksilver": "mercury",
    "wolfram": "tungsten",
}

#: elements that occur as diatomic molecules: "O2" names oxygen as well as "O" does
DIATOMIC: frozenset[str] = frozenset("H N O F Cl Br I".split())

#: compounds and abbreviations, formula or abbreviation (case-sensitive) → names
#: (lowercase); a formula's subscripts are read as plain digits ("CO₂" is "CO2")
COMPOUNDS: dict[str, tuple[str, ...]] = {
    "CO2": ("carbon dioxide",),
    "CO": ("carbon monoxide",),
    "H2O": ("water", "dihydrogen monoxide"),
    "H2O2": ("hydrogen peroxide",),
    "O3": ("ozone",),
    "NaCl": ("sodium chloride", "table salt", "salt"),
    "KCl": ("potassium chloride",),
    "HCl": ("hydrochloric acid", "hydrogen chloride"),
    "H2SO4": ("sulfuric acid", "sulphuric acid"),
    "HNO3": ("nitric acid",),
    "H3PO4": ("phosphoric acid",),
    "H2CO3": ("carbonic acid",),
    "CH3COOH": ("acetic acid", "ethanoic acid"),
    "NaOH": ("sodium hydroxide", "caustic soda", "lye"),
    "KOH": ("potassium hydroxide", "caustic potash"),
    "Ca(OH)2": ("calcium hydroxide", "slaked lime"),
    "NH3": ("ammonia",),
    "CH4": ("methane",),
    "C2H6": ("ethane",),
    "C3H8": ("propane",),
    "C4H10": ("butane",),
    "C2H4": ("ethylene", "ethene"),
    "C2H2": ("acetylene", "ethyne"),
    "C2H5OH": ("ethanol", "ethyl alcohol"),
    "CH3OH": ("methanol", "methyl alcohol"),
    "C6H12O6": ("glucose",),
    "C12H22O11": ("sucrose", "table sugar"),
    "C6H6": ("benzene",),
    "CaCO3": ("calcium carbonate", "limestone", "chalk"),
    "CaO": ("calcium oxide", "quicklime"),
    "NaHCO3": ("sodium bicarbonate", "baking soda", "sodium hydrogen carbonate"),
    "Na2CO3": ("sodium carbonate", "washing soda"),
    "SO2": ("sulfur dioxide", "sulphur dioxide"),
    "SO3": ("sulfur trioxide", "sulphur trioxide"),
    "NO": ("nitric oxide", "nitrogen monoxide"),
    "NO2": ("nitrogen dioxide",),
    "N2O": ("nitrous oxide", "laughing gas"),
    "SiO2": ("silicon dioxide", "silica", "quartz"),
    "Fe2O3": ("iron oxide", "iron(iii) oxide", "rust", "ferric oxide"),
    "Al2O3": ("aluminium oxide", "aluminum oxide", "alumina"),
    "AgNO3": ("silver nitrate",),
    "CuSO4": ("copper sulfate", "copper sulphate"),
    "MgO": ("magnesium oxide",),
    "DNA": ("deoxyribonucleic acid",),
    "RNA": ("ribonucleic acid",),
    "mRNA": ("messenger rna", "messenger ribonucleic acid"),
    "tRNA": ("transfer rna", "transfer ribonucleic acid"),
    "ATP": ("adenosine triphosphate",),
    "ADP": ("adenosine diphosphate",),
    "AMP": ("adenosine monophosphate",),
    "NADH": ("nicotinamide adenine dinucleotide",),
    "NADPH": ("nicotinamide adenine dinucleotide phosphate",),
    "CFC": ("chlorofluorocarbon", "chlorofluorocarbons"),
    "PVC": ("polyvinyl chloride",),
    "TNT": ("trinitrotoluene",),
    "LSD": ("lysergic acid diethylamide",),
    "MSG": ("monosodium glutamate",),
    "HIV": ("human immunodeficiency virus",),
    "AIDS": ("acquired immunodeficiency syndrome",),
    "UV": ("ultraviolet",),
    "IR": ("infrared",),
}

#: words around a substance that do not change which substance it is
SUBSTANCE_FILLER: frozenset[str] = frozenset(
    "gas gaseous molecule molecules element atom atoms atomic liquid solid pure the a an "
    "chemical symbol formula molecular".split()
)

#: units: written form (lowercase, after the number) → (dimension, factor to the base
#: unit, offset to the base unit): base = value × factor + offset
UNITS: dict[str, tuple[str, float, float]] = {
    **dict.fromkeys(("m", "metre", "metres", "meter", "meters"), ("length", 1.0, 0.0)),
    **dict.fromkeys(
        ("km", "kilometre", "kilometres", "kilometer", "kilometers"), ("length", 1e3, 0.0)
    ),
    **dict.fromkeys(
        ("cm", "centimetre", "centimetres", "centimeter", "centimeters"), ("length", 1e-2, 0.0)
    ),
    **dict.fromkeys(
        ("mm", "millimetre", "millimetres", "millimeter", "millimeters"), ("length", 1e-3, 0.0)
    ),
    **dict.fromkeys(("mi", "mile", "miles"), ("length", 1609.344, 0.0)),
    **dict.fromkeys(("ft", "foot", "feet"), ("length", 0.3048, 0.0)),
    **dict.fromkeys(("inch", "inches"), ("length", 0.0254, 0.0)),
    **dict.fromkeys(("yd", "yard", "yards"), ("length", 0.9144, 0.0)),
    **dict.fromkeys(("g", "gram", "grams", "gramme", "grammes"), ("mass", 1.0, 0.0)),
    **dict.fromkeys(("kg", "kilogram", "kilograms", "kilo", "kilos"), ("mass", 1e3, 0.0)),
    **dict.fromkeys(("mg", "milligram", "milligrams"), ("mass", 1e-3, 0.0)),
    **dict.fromkeys(("lb", "lbs"), ("mass", 453.59237, 0.0)),
    **dict.fromkeys(("oz", "ounce", "ounces"), ("mass", 28.349523125, 0.0)),
    **dict.fromkeys(("t", "tonne", "tonnes"), ("mass", 1e6, 0.0)),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), ("time", 1.0, 0.0)),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), ("time", 60.0, 0.0)),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), ("time", 3600.0, 0.0)),
    **dict.fromkeys(("day", "days"), ("time", 86400.0, 0.0)),
    **dict.fromkeys(("week", "weeks"), ("time", 604800.0, 0.0)),
    **dict.fromkeys(("l", "litre", "litres", "liter", "liters"), ("volume", 1.0, 0.0)),
    **dict.fromkeys(
        ("ml", "millilitre", "millilitres", "milliliter", "milliliters"), ("volume", 1e-3, 0.0)
    ),
    **dict.fromkeys(
        (
            "°c",
            "degrees celsius",
            "degree celsius",
            "celsius",
            "degrees c",
            "centigrade",
            "degrees centigrade",
            "c",
        ),
        ("temperature", 1.0, 0.0),
    ),
    **dict.fromkeys(
        ("°f", "degrees fahrenheit", "degree fahrenheit", "fahrenheit", "degrees f", "f"),
        ("temperature", 5 / 9, -160 / 9),
    ),
    **dict.fromkeys(("k", "kelvin", "kelvins"), ("temperature", 1.0, -273.15)),
    **dict.fromkeys(
        ("km/s", "kilometres per second", "kilometers per second"), ("speed", 1e3, 0.0)
    ),
    **dict.fromkeys(("m/s", "metres per second", "meters per second"), ("speed", 1.0, 0.0)),
    **dict.fromkeys(
        ("km/h", "kph", "kilometres per hour", "kilometers per hour"), ("speed", 1 / 3.6, 0.0)
    ),
    **dict.fromkeys(("mph", "miles per hour"), ("speed", 0.44704, 0.0)),
    **dict.fromkeys(("$", "dollar", "dollars", "usd", "us dollars"), ("usd", 1.0, 0.0)),
    **dict.fromkeys(("cent", "cents", "¢"), ("usd", 0.01, 0.0)),
    **dict.fromkeys(("%", "percent", "per cent", "percentage"), ("percent", 1.0, 0.0)),
}

#: unit words that name a scale without saying which ("32 degrees"): compared by value
#: with any unit of their dimension
VAGUE_UNITS: dict[str, str] = {
    "degree": "temperature",
    "degrees": "temperature",
    "°": "temperature",
}

#: number words
SMALL_NUMBERS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
} | {"a": 1, "an": 1, "dozen": 12}
TENS: dict[str, int] = {
    w: 10 * i
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)
}
SCALES: dict[str, float] = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
}
#: denominators written as words ("one sixth", "three quarters")
FRACTION_WORDS: dict[str, int] = {
    **dict.fromkeys(("half", "halves"), 2),
    **dict.fromkeys(("third", "thirds"), 3),
    **dict.fromkeys(("quarter", "quarters", "fourth", "fourths"), 4),
    **dict.fromkeys(("fifth", "fifths"), 5),
    **dict.fromkeys(("sixth", "sixths"), 6),
    **dict.fromkeys(("seventh", "sevenths"), 7),
    **dict.fromkeys(("eighth", "eighths"), 8),
    **dict.fromkeys(("ninth", "ninths"), 9),
    **dict.fromkeys(("tenth", "tenths"), 10),
    **dict.fromkeys(("hundredth", "hundredths"), 100),
    **dict.fromkeys(("thousandth", "thousandths"), 1000),
}
#: ordinals as words, for centuries ("sixteenth century")
ORDINALS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split(),
        start=1,
    )
} | {"twenty-first": 21, "twenty first": 21}

#: words before a number or date that hedge it but do not change it
HEDGES: frozenset[str] = frozenset(
    "about around approximately approx roughly nearly almost circa ca c exactly just some "
    "over under in on the by at since from ~ ≈ only precisely".split()
)

MONTHS: dict[str, int] = {
    name: i
    for i, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}

#: words that open an affirmative or a negative reply
YES_WORDS: frozenset[str] = frozenset(
    "yes yeah yep yup true correct right indeed affirmative certainly absolutely definitely".split()
)
NO_WORDS: frozenset[str] = frozenset("no nope nah false incorrect wrong negative not never".split())
#: words inside an elaboration that make it negative ("They cannot fly")
NEGATIONS: frozenset[str] = frozenset(
    "not no never cannot can't isn't aren't wasn't weren't don't doesn't didn't won't hasn't haven't couldn't shouldn't".split()
)
#: the first words of a question that a yes or a no answers
YES_NO_OPENERS: frozenset[str] = frozenset(
    "is are was were am do does did can could will would shall should has have had may "
    "might must isn't aren't wasn't doesn't don't didn't can't".split()
)

#: titles and honorifics dropped from a person's name
TITLES: frozenset[str] = frozenset(
    "sir dame dr doctor mr mrs ms miss mister madame madam mme monsieur lord lady king queen "
    "prince princess emperor empress president pres count countess duke duchess baron saint "
    "st pope general gen captain capt professor prof rev reverend father sister brother "
    "senator sen governor gov judge chancellor prime minister pm archbishop bishop".split()
)
#: name particles ("da Vinci", "van Beethoven"): lowercase inside a capitalised name
PARTICLES: frozenset[str] = frozenset(
    "da de del della der di du la le van von bin ibn al y of".split()
)

#: currencies: a currency word → its base name ("rouble" is "ruble", "renminbi" is "yuan")
CURRENCY_NAMES: dict[str, str] = {
    **{
        w: w
        for w in (
            "pound dollar euro yen yuan rupee franc ruble real peso krona krone won rand lira "
            "shekel dinar dirham riyal ringgit baht dong rupiah zloty forint koruna hryvnia "
            "taka naira shilling kwacha lev leu kuna lek mark guilder escudo drachma peseta "
            "lira sol colon bolivar quetzal lempira cedi birr afghani rial manat som tenge "
            "lari dram kyat kip riel tugrik ngultrum rufiyaa".split()
        )
    },
    "rouble": "ruble",
    "renminbi": "yuan",
    "rmb": "yuan",
    "sterling": "pound",
    "quid": "pound",
    "buck": "dollar",
    "bucks": "dollar",
    "kroner": "krone",
    "kronor": "krona",
    "reais": "real",
    "yuans": "yuan",
}
#: currency codes and symbols (lowercase) → (country, base name)
CURRENCY_CODES: dict[str, tuple[str, str]] = {
    "gbp": ("united kingdom", "pound"),
    "£": ("united kingdom", "pound"),
    "usd": ("united states", "dollar"),
    "us$": ("united states", "dollar"),
    "$": ("", "dollar"),
    "eur": ("", "euro"),
    "€": ("", "euro"),
    "jpy": ("japan", "yen"),
    "¥": ("", "yen"),
    "cny": ("china", "yuan"),
    "rmb": ("china", "yuan"),
    "inr": ("india", "rupee"),
    "₹": ("india", "rupee"),
    "chf": ("switzerland", "franc"),
    "rub": ("russia", "ruble"),
    "₽": ("russia", "ruble"),
    "brl": ("brazil", "real"),
    "mxn": ("mexico", "peso"),
    "sek": ("sweden", "krona"),
    "nok": ("norway", "krone"),
    "dkk": ("denmark", "krone"),
    "krw": ("south korea", "won"),
    "₩": ("", "won"),
    "kpw": ("north korea", "won"),
    "cad": ("canada", "dollar"),
    "aud": ("australia", "dollar"),
    "nzd": ("new zealand", "dollar"),
    "hkd": ("hong kong", "dollar"),
    "zar": ("south africa", "rand"),
    "try": ("turkey", "lira"),
    "ils": ("israel", "shekel"),
    "pln": ("poland", "zloty"),
    "egp": ("egypt", "pound"),
    "pkr": ("pakistan", "rupee"),
    "ars": ("argentina", "peso"),
    "clp": ("chile", "peso"),
    "sgd": ("singapore", "dollar"),
    "thb": ("thailand", "baht"),
    "ngn": ("nigeria", "naira"),
}

#: a country's names and adjectives (phrases, lowercase) → the country: what a
#: currency's qualifier names ("Swiss franc", "pound sterling")
COUNTRY_WORDS: dict[str, str] = {
    word: country
    for country, words in {
        "united kingdom": "british, uk, britain, great britain, england, english, sterling, united kingdom",
        "united states": "us, u.s., usa, american, america, united states",
        "japan": "japanese, japan",
        "china": "chinese, china",
        "india": "indian, india",
        "pakistan": "pakistani, pakistan",
        "switzerland": "swiss, switzerland",
        "france": "french, france",
        "germany": "german, germany, deutsche",
        "russia": "russian, russia",
        "belarus": "belarusian, belarus",
        "brazil": "brazilian, brazil",
        "mexico": "mexican, mexico",
        "argentina": "argentine, argentinian, argentina",
        "chile": "chilean, chile",
        "sweden": "swedish, sweden",
        "norway": "norwegian, norway",
        "denmark": "danish, denmark",
        "south korea": "south korean, south korea",
        "north korea": "north korean, north korea",
        "canada": "canadian, canada",
        "australia": "australian, australia",
        "new zealand": "new zealand",
        "hong kong": "hong kong",
        "egypt": "egyptian, egypt",
        "turkey": "turkish, turkey",
        "israel": "israeli, israel",
        "poland": "polish, poland",
        "south africa": "south african, south africa",
        "nigeria": "nigerian, nigeria",
        "italy": "italian, italy",
        "spain": "spanish, spain",
        "netherlands": "dutch, netherlands",
        "singapore": "singapore, singaporean",
        "thailand": "thai, thailand",
        "ukraine": "ukrainian, ukraine",
        "bangladesh": "bangladeshi, bangladesh",
        "indonesia": "indonesian, indonesia",
        "saudi arabia": "saudi, saudi arabia",
        "iran": "iranian, iran",
        "iraq": "iraqi, iraq",
        "jordan": "jordanian",
        "kuwait": "kuwaiti, kuwait",
        "taiwan": "taiwanese, taiwan",
        "philippines": "philippine, filipino, philippines",
        "vietnam": "vietnamese, vietnam",
        "malaysia": "malaysian, malaysia",
        "ireland": "irish, ireland",
        "czech republic": "czech, czech republic",
        "hungary": "hungarian, hungary",
        "colombia": "colombian, colombia",
        "peru": "peruvian, peru",
    }.items()
    for word in words.split(", ")
}
