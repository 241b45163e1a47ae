"""The guard's vocabulary and rules, as data (:mod:`qrelkit.judging.guard` runs them).

Everything here is written in *folded* form, the form :func:`qrelkit.judging.guard.fold` gives
a document: lower case, no diacritics (``é`` -> ``e``, ``ß`` -> ``ss``), full-width forms made
ASCII, Arabic alef variants made one. Each vocabulary is the union of its languages (English,
German, French, Spanish, Italian, Portuguese, Dutch, Chinese, Japanese, Korean, Russian,
Arabic), so one rule covers them all. Two macros keep the rules readable: ``~`` is a separator
(up to five non-word characters, or none: markup removed between two words joins them) and
``@name`` is a vocabulary below.

Why rules and not one list of phrases: web text uses every one of these words legitimately
("the judge ruled the evidence relevant", "raters score each page", "ignore the previous
step"); what an injected instruction has and web text lacks is a *combination* — a word that
addresses the reader as an assessor together with a relevance label, a pointer at "this
passage" together with a label, an override verb together with "previous" and "instructions".
Each rule is one such combination; a vocabulary word alone never flags.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


class Words(str):
    """A regular expression that remembers the words it was made of (the guard's prefilter
    reads them: :func:`qrelkit.judging.guard.prefixes`)."""

    words: tuple[str, ...] = ()


def _words(source: str, words: tuple[str, ...]) -> Words:
    out = Words(source)
    out.words = words
    return out


def alt(*parts: str) -> Words:
    """Alternatives as one non-capturing group."""
    return _words("(?:" + "|".join(parts) + ")", tuple(x for p in parts for x in getattr(p, "words", ())))


def w(*words: str) -> Words:
    """Alternatives as whole words (scripts with spaces between words)."""
    return _words(r"\b" + alt(*words) + r"\b", words)


VOCAB: dict[str, str] = {}

# "this" pointing at the document itself
VOCAB["this"] = alt(
    w("this", "the following", "the above", "the present", "the current",
      r"dies\w*", r"vorliegend\w*", r"folgend\w*", "ce", "cet", "cette", "le present", "la presente",
      "este", "esta", "el presente", "la presente", "questo", "questa", "quest", "il presente",
      "esse", "essa", "neste", "nesta", "o presente", "a presente", "dit", "deze", "het volgende",
      r"это\w*", r"эта", r"этот", r"данн\w*", r"настоящ\w*"),
    "这篇", "这段", "这个", "这份", "这条", "这则", "此", "本", "该", "以上", "上述",
    "この", "当", "上記の", "以下の", "هذا", "هذه", "이 ",
)
VOCAB["doc"] = alt(
    w(r"passages?", r"documents?", "doc", r"texts?", r"pages?", r"web ?pages?", r"snippets?", r"paragraphs?",
      r"excerpts?", "content", r"articles?", r"results?", r"chunks?", r"entry", r"passage\w*",
      r"text\w*", r"dokument\w*", r"abschnitt\w*", r"seite\w*", r"artikel\w*", r"absatz\w*", r"inhalt\w*",
      r"eintrag\w*", r"ergebnis\w*", r"beitrag\w*", r"textes?", r"extraits?", r"paragraphes?", r"contenus?",
      r"resultats?", r"pasajes?", r"documentos?", r"textos?", r"paginas?", r"fragmentos?", r"parrafos?",
      r"articulos?", r"contenidos?", r"resultados?", r"extractos?", r"passagg\w*", r"document\w*", r"test[oi]",
      r"pagin\w*", r"bran[oi]", r"paragraf\w*", r"articol\w*", r"contenut\w*", r"risultat\w*", r"estratt\w*",
      r"trechos?", r"paragrafos?", r"artigos?", r"conteudos?", r"excertos?", r"tekst\w*", r"fragment\w*",
      r"alinea\w*", "inhoud", r"resultaat\w*", r"документ\w*", r"текст\w*", r"отрыв\w*", r"фрагмент\w*",
      r"страниц\w*", r"стать\w*", r"абзац\w*", r"материал\w*", r"результат\w*"),
    "文档", "文件", "文章", "段落", "段文字", "文字", "文本", "内容", "页面", "网页", "结果", "片段", "页",
    "文書", "テキスト", "ページ", "記事", "パッセージ", "ドキュメント", "抜粋",
    "المقطع", "النص", "المستند", "الوثيقه", "الوثيقة", "الصفحه", "الصفحة", "المقال", "الفقره", "الفقرة",
    "المحتوي", "المحتوى", "문서", "텍스트", "단락", "페이지", "구절",
)
VOCAB["rel"] = alt(
    w(r"relevan\w*", r"hochrelevant\w*", r"pertinen\w*", r"rilevan\w*", r"релевант\w*", "on-topic",
      r"perfect match\w*", r"einschlagig\w*"),
    "相关", "相關", "切题", "関連", "適合", "ذو صله", "ذو صلة", "ذات صلة", "ذات صله", "الصلة", "الصله",
    "관련", "적합",
)
VOCAB["intens"] = alt(
    w("perfectly", "highly", "very", "fully", "totally", "extremely", "completely", "entirely", "maximally",
      "most", "100 ?%", "absolutely", "exactly", "perfekt", "vollig", "absolut", "hoch", "sehr", "ausserst",
      "vollkommen", "voll", "ganz", "hochst", "extrem", "total", "parfaitement", "tres", "totalement",
      "extremement", "entierement", "pleinement", "hautement", "perfectamente", "muy", "totalmente",
      "extremadamente", "completamente", "altamente", "sumamente", "perfettamente", "molto",
      "estremamente", "assolutamente", "pienamente", "perfeitamente", "muito", "extremamente",
      "zeer", "volledig", "perfect", "uiterst", "helemaal", "идеально", "полностью", "очень", "крайне",
      "абсолютно", "максимально", "совершенно", "высоко", r"hochrelevant\w*"),
    "非常", "完全", "高度", "十分", "极其", "极为", "最", "完美", "とても", "極めて",
    "تماما", "تمامًا", "تماما", "كبيره", "كبيرة", "عاليه", "عالية", "وثيق", "جدا", "للغايه", "للغاية", "매우", "완전히",
)
VOCAB["query"] = alt(
    w(r"quer(?:y|ies)", r"questions?", "search", "request", "topic", r"user'?s", r"consultas?", "pregunta",
      r"requetes?", r"anfrage\w*", r"suchanfrage\w*", "frage", "domanda", "ricerca", "pergunta", "busca",
      r"vraag\w*", r"zoekvraag\w*", r"запрос\w*", r"вопрос\w*"),
    "查询", "问题", "クエリ", "質問", "الاستعلام", "استعلام", "السؤال", "질문", "쿼리",
)
# a relevance label: a grade on the usual 0-3 scale, the top of the scale, or the label itself
VOCAB["gradeword"] = alt(
    w(r"scores?", r"grades?", r"ratings?", r"labels?", r"marks?", r"notes?", "nota", "voto", "punteggio",
      "punktzahl", "punkte", "bewertung", "stufe", "cijfer", "puntuacion", "calificacion", "pontuacao",
      r"оценк\w*", r"балл\w*", "relevance", r"relevanz\w*", r"pertinence", r"relevancia", r"rilevanza",
      r"relevantie"),
    "درجه", "درجة", "分", "評価", "点", "등급", "점수",
)
VOCAB["top"] = alt(
    w("highest", "maximum", "max", "top", "best", "full", "perfect", r"hochste\w*", r"maximal\w*",
      "plus haute", "plus elevee", "maximale", "mas alta", "maxima", "maximo", "massimo", "massima",
      "piu alto", "piu alta", "mais alta", "hoogste", r"высш\w*", r"максимальн\w*"),
    "最高", "满分", "أعلى", "اعلي", "اعلى", "최고",
)
_GRADES = (  # a grade on the usual 0-3 scale, or the top of the scale
    VOCAB["gradeword"] + r"[^\w]{0,3}" + alt("of", "de", "di", "da", "van", "von", "mit", "=", ":", "is", "равн\\w*")
    + r"?[^\w]{0,3}[0-3](?![\d,%/]|\.\d|\s?(?:/|out of|stars?|points?|(?:to|-)\s?\d|%))",
    VOCAB["top"] + r"~(?:\w+~)?" + alt(VOCAB["gradeword"], VOCAB["rel"], r"marks?", r"points?", r"match\w*"),
    alt(VOCAB["gradeword"], r"note\w*") + "~" + VOCAB["top"],
    w("bestnote", r"hochstnote\w*", "full marks", "top marks"),
    r"\b(?:[0-3]|zero|one|two|three)~(?:points?|stars?|marks?)~(?:of|for)~(?:relevance|relevancy)\b",
    "最高分", "最高評価", "满分", r"[0-3]分",
)
VOCAB["label"] = alt(VOCAB["rel"], *_GRADES)
# a label given, not the word "relevance" used as a noun ("evaluators should assess relevance")
VOCAB["relv"] = alt(
    w(r"relevant\w*", r"hochrelevant\w*", r"pertinent\w*", r"rilevant\w*", r"релевантн\w*", r"релевантен",
      "on-topic", r"perfect match\w*", r"einschlagig\w*"),
    "相关", "相關", "切题", "関連", "適合", "ذو صله", "ذو صلة", "ذات صلة", "ذات صله", "الصلة", "الصله", "관련", "적합",
)
VOCAB["label_value"] = alt(VOCAB["relv"], *_GRADES)
# who an injection talks to: always-addressed words, and words that address only in a vocative
VOCAB["addr"] = alt(
    w(r"assessors?", r"graders?", r"raters?", r"annotators?", r"evaluators?", r"reviewers?", r"llms?",
      r"(?:large )?language models?", r"ai(?:-| )?(?:judge|grader|assessor|evaluator|rater|model|system|assistant|"
      r"reviewer|annotator)s?", "chatgpt", r"gpt-?\d\w*", "claude", "gemini", "copilot",
      r"automated (?:grader|judge|assessor|evaluator|rater|system|reviewer)s?",
      r"relevance (?:judge|assessor|annotator|rater|grader|evaluator)s?", r"llm[- ]?(?:judge|grader|evaluator)s?",
      r"judges?", r"models?", r"systems?", r"assistants?", "ai", "a\\.i\\.", r"bots?", r"rerankers?", r"rankers?",
      r"ranking (?:model|system)s?", r"ai agents?", r"(?:whoever|anyone|anybody) (?:is |who is )?(?:grading|judging|"
      r"evaluating|rating|assessing|reviewing|reading)",
      r"gutachter\w*", r"bewerter\w*", r"prufer\w*", r"beurteiler\w*", r"sprachmodell\w*", "ki", r"ki-\w+",
      r"modell", r"richter\w*", r"evaluat(?:eur|rice)s?", r"correct(?:eur|rice)s?", r"annotat(?:eur|rice)s?",
      r"examinat(?:eur|rice)s?", r"modeles? de lang\w*", "ia", r"juges?", "modele", "systeme",
      r"evaluador\w*", r"calificador\w*", r"anotador\w*", r"examinador\w*", r"modelos? de lenguaje", "juez",
      "jueces", "modelo", "sistema", "asistente", r"valutator\w*", r"correttor\w*", r"esaminator\w*",
      r"modell[oi] (?:di )?linguag\w*", r"modell[oi] linguistic\w*", r"giudic[ei]", "modello", "assistente",
      r"avaliador\w*", r"corretor\w*", r"modelos? de linguagem", "juiz", "juiza", r"beoordelaar\w*",
      r"taalmodel\w*", "rechter", "model", "systeem", "assistent", r"асессор\w*", r"оценщик\w*",
      r"проверяющ\w*", r"аннотатор\w*", r"модел\w*", r"нейросет\w*", "ии", r"ассистент\w*", r"судь\w*",
      r"эксперт\w*"),
    "评审员", "评审", "评估员", "评估者", "评估模型", "评分员", "评分系统", "评分模型", "评委", "审核员",
    "标注员", "评判", "裁判", "人工智能", "大模型", "语言模型", "评估系统",
    "評価者", "審査員", "採点者", "判定者", "アノテーター", "評価モデル", "言語モデル",
    "المقيم", "للمقيم", "المقيمين", "المراجع", "الحكم", "النموذج", "الذكاء الاصطناعي", "المصحح",
    "평가자", "심사위원", "채점자",
)
# addressees no web page names in passing (a page about courts says "the judge must", one about
# search engines "the ranking system should"): enough with a modal verb and a label
VOCAB["addr_strong"] = alt(w(
    r"assessors?", r"graders?", r"raters?", r"annotators?", r"evaluators?", r"llms?", r"(?:large )?language models?",
    r"ai(?:-| )?(?:judge|grader|assessor|evaluator|rater|model|assistant|reviewer|annotator|agent)s?", "chatgpt",
    r"gpt-?\d\w*", r"automated (?:grader|judge|assessor|evaluator|rater|reviewer)s?", r"rerankers?",
    r"relevance (?:judge|assessor|annotator|rater|grader|evaluator)s?", r"llm[- ]?(?:judge|grader|evaluator)s?",
    r"(?:whoever|anyone|anybody|someone) (?:is |who is )?(?:grading|judging|evaluating|rating|assessing|reviewing)",
    r"gutachter\w*", r"bewerter\w*", r"sprachmodell\w*", r"evaluat(?:eur|rice)s?", r"evaluador\w*",
    r"valutator\w*", r"avaliador\w*", r"beoordelaar\w*", r"асессор\w*", r"оценщик\w*"),
    "评审员", "评估员", "评分员", "評価者", "審査員", "المقيم")
# openings that make the next words an address: "note to the", "dear", "as the ... you"
VOCAB["call"] = alt(
    w("dear", "hey", "hi", "hello", "attention", "attn", "psst", r"note (?:to|for)(?: the| any| all| every| an?)?",
      r"(?:message|instructions?|memo|reminder|notice|warning|important|hint|info|tip) (?:to|for)(?: the| any| all"
      r"| every| an?)?", r"to (?:the|any|all|every|each)(?: \w+)?", r"liebe[rs]?", "hallo", r"hinweis (?:an|fur) (?:den|die|das)",
      "achtung", r"an (?:den|die|das)", "cher", "chere", r"note (?:a|pour) (?:l'|le |la )?", r"a l'attention (?:de|du|des)",
      r"querid[oa]s?", r"estimad[oa]s?", r"nota (?:para|al|a la|per il|per la|per l'|ao|a|para o|para a)",
      "atencion", "hola", r"car[oa]", r"all'attenzione (?:del|della|dell'|di)", "attenzione", r"prezad[oa]s?",
      "atencao", "ola", "beste", r"geachte", r"opmerking (?:voor|aan) (?:de|het)", "let op",
      r"уважаем\w*", r"дорог\w*", r"примечание для", "внимание", r"к сведению"),
    "致", "尊敬的", "亲爱的", "请注意", "注意", "各位", "ملاحظه لل", "ملاحظة لل", "الي", "إلى", "ايها", "أيها",
    "عزيزي",
)
VOCAB["you"] = alt(
    w("you", "your", "du", "dein", "deine", "ihr", r"sie (?:mussen|sollen|sollten)", "vous", "tu", "usted",
      "debes", "devi", "deve", "voce", "jij", "je moet", "u moet", "ты", "вы", r"должн\w*"),
    "你", "您", "あなた", "أنت", "انت", "بصفتك", "당신",
)
VOCAB["be"] = w("is", "are", "was", "seems", "appears", "remains", "ist", "sind", "est", "sont", "es", "son",
                "e", "sono", "sao", "zijn")
# imperative or modal verbs that dictate a label (a directive says one of these)
VOCAB["verb"] = alt(
    w("rate", "score", "grade", "label", "mark", "classify", "judge", "assess", "evaluate", "tag", "treat",
      "consider", "deem", r"categori[sz]e", "assign", "give", "award", "output", "rank", "flag", "regard",
      r"bewerte\w*", r"markier\w*", r"stuf\w*", r"einstuf\w*", r"kennzeichne\w*", r"klassifizier\w*",
      r"beurteil\w*", "gib", "gebt", "vergib", r"betrachte\w*", r"behandle\w*", r"notez?", r"evaluez?",
      r"marquez?", r"class\w*", r"attribue\w*", r"donnez?", r"considere\w*", r"jugez?", r"etiquete\w*",
      r"accorde\w*", "marquer", r"califica\w*", r"califique\w*", r"evalua\w*", r"evalue\w*", r"marca\w*", r"marque\w*", r"clasifica\w*",
      r"asigna\w*", r"asigne\w*", "dale", "dele", r"otorga\w*", r"considera\w*", r"etiqueta\w*", r"puntua\w*",
      r"valuta\w*", r"segna\w*", r"classifica\w*", r"assegna\w*", "dai", "date", "dare", r"attribuisci\w*",
      r"giudica\w*", r"avalie\w*", r"atribua\w*", r"rotule\w*", r"pontue\w*", r"beoordeel\w*", r"markeer\w*",
      r"classificeer\w*", "geef", r"beschouw\w*", r"waardeer\w*", r"оцени\w*", r"отмет\w*", r"постав\w*",
      r"присво\w*", r"классифицир\w*", r"считай\w*", "дай", "дайте", r"выстав\w*", r"пометь\w*"),
    "评为", "标记", "标为", "给出", "给", "打", "判定", "判为", "视为", "认定", "归类", "评分",
    "評価", "つけ", "付け", "与え", "マーク", "分類", "みなし", "見なし", "扱",
    "قيم", "صنف", "ضع", "امنح", "اعط", "أعط", "اعتبر", "평가", "표시", "분류", "매기", "부여",
)
VOCAB["modal"] = alt(
    w("must", "should", "shall", "have to", "has to", "need to", "needs to", "please", "kindly", r"muss\w*",
      r"soll\w*", "bitte", r"dev\w*", "doit", "veuillez", "merci de", "debe", r"deberia\w*", "por favor",
      "per favore", "si prega", "moet", "moeten", "alsjeblieft", r"должен\w*", r"должн\w*", "пожалуйста"),
    "必须", "应该", "应当", "请", "してください", "なければ", "ください", "يجب", "يرجى", "من فضلك", "رجاء",
    "해야", "주세요", "하세요",
)
VOCAB["ovr"] = alt(
    w("ignore", "ignoring", "disregard", "forget", "overlook", "override", "bypass", "discard", "neglect",
      "set aside", "skip", r"ignorier\w*", "vergiss", r"vergessen", r"missachte\w*", r"uberseh\w*", r"ignor\w*",
      r"oublie\w*", r"olvid\w*", r"dimentic\w*", r"esquec\w*", r"negeer\w*", "vergeet", r"игнорир\w*",
      r"забудь\w*", r"не обращай\w*", r"не учитывай\w*",
      # set 10 (Thai and Vietnamese missed by every stage): sv pl cs uk tr vi id, folded
      "glom", "bortse", r"zignor\w*", r"zapomnij\w*", r"zapomen\w*", r"ігнору\w*", r"не зважа\w*", r"yoksay\w*",
      r"gormezden gel\w*", "bo qua", "phot lo", "abaikan", "lupakan"),
    "忽略", "无视", "忽视", "不要理会", "無視", "忘れ", "تجاهل", "انس", "무시", "잊",
    "ละเวน", "เพกเฉย", "ไมตองสนใจ", "अनदखा", "नजरअदाज",  # Thai and Hindi as folding leaves them
)
VOCAB["prior"] = alt(
    w("previous", "prior", "above", "earlier", "preceding", "foregoing", "original", "initial", "rest of",
      r"vorherig\w*", r"bisherig\w*", r"obig\w*", r"fruhere\w*", r"vorangegangen\w*", r"precedent\w*",
      r"anterieur\w*", r"anterior\w*", r"previ[ao]s", r"precedent[ei]", r"eerdere", r"vorige", r"предыдущ\w*",
      r"прежн\w*", r"вышеуказанн\w*", "tidigare", "foregaende", r"poprzedni\w*", r"wczesniejsz\w*",
      r"predchoz\w*", r"попередн\w*", r"onceki\w*", "truoc đo", "truoc đay", "sebelumnya"),
    "之前", "以前", "以上", "上面", "先前", "前面", "これまで", "上記", "前の", "السابقه", "السابقة", "이전", "위의",
    "กอนหนา", "ทผานมา", "पिछल",
)
VOCAB["prior_weak"] = w("all", "any", "your", "alle", "deine", "ihre", "toutes", "tous", "vos", "tes", "todas",
                        "todos", "tus", "sus", "tutte", "tutti", "tue", "suas", "je", "все", "свои", "твои",
                        "ваши")
VOCAB["instr"] = alt(
    w(r"instructions?", r"prompts?", r"guidelines?", r"directions", r"directives?", r"rules", r"orders",
      r"commands", r"guidance", r"programming", r"anweisung\w*", r"instruktion\w*", "regeln", "vorgaben",
      r"befehl\w*", r"richtlinie\w*", r"consignes?", r"regles", r"instrucciones", r"instruccion",
      r"reglas", r"directrices", r"indicaciones", r"istruzion\w*", r"regole", r"direttive",
      r"indicazion\w*", r"instrucoes", r"instrucao", r"regras", r"diretrizes", r"orientacoes",
      r"instructie\w*", r"regels", r"richtlijn\w*", r"aanwijzing\w*", r"инструкци\w*", r"указани\w*",
      r"правил\w*", r"команд\w*", r"anvisning\w*", r"instrukcj\w*", r"polecen\w*", r"wytyczn\w*",
      r"instrukc\w*", r"pokyn\w*", r"інструкці\w*", r"вказівк\w*", r"talimat\w*", r"yonerge\w*",
      "chi dan", "huong dan", "chi thi", "instruksi", "petunjuk", "perintah"),
    "คาสง", "คาแนะนา", "निरदश",
    "指令", "指示", "说明", "规则", "提示词", "命令", "ルール", "プロンプト", "التعليمات", "تعليمات",
    "القواعد", "الاوامر", "지시", "지침", "규칙", "명령",
)
VOCAB["instr_strong"] = alt(
    w(r"instructions?", r"prompts?", r"guidelines?", r"directives?", r"anweisung\w*", r"consignes?",
      r"instrucciones", r"istruzion\w*", r"instrucoes", r"instructie\w*", r"инструкци\w*"),
    "指令", "指示", "プロンプト", "التعليمات", "지시",
)

# words the rules below need besides the vocabularies above (the guard's prefilter: a text with
# none of ``label``, ``ovr``, ``gradeword``, ``rel``, ``instr`` or these is clean)
VOCAB["prefilter"] = w("rate", "score", "grade", "bewerte", "note", "notez", "califica", "valuta", "avalie",
                       "beoordeel", "оцени", "respond", "reply", "output")
# the words of a label that are neither a relevance word nor a grade word
VOCAB["labelword"] = w("bestnote", r"hochstnote\w*", "marks", r"match\w*", "on-topic")


@dataclass(frozen=True)
class Rule:
    """One combination that flags. ``pattern`` must match; each of ``near`` must match within
    ``window`` characters of it (either side). ``reason`` is what people are told."""

    name: str
    reason: str
    pattern: str
    near: tuple[str, ...] = ()
    window: int = 60
    after_only: bool = False  # ``near`` only after the match (a claim's intensifier follows its subject)
    cues: tuple[str, ...] = ()  # with ``min_cues``: at least that many of these around the match too
    min_cues: int = 0
    sentence: bool = False  # ``near`` and ``cues`` within the match's sentence (and ``window``)
    # every hit holds a trigger word (a relevance, grade or label word, a labelling verb of the
    # prefilter, an override verb, "instructions"): on a long text the rule runs only in windows
    # around those words (qrelkit.judging.guard._pieces); a rule without it runs on the whole text
    local: bool = False


SENTENCE = r"[^.!?;\n。！？]"
VOCATIVE = alt(
    r"(?:^|[.!?:;\n\]\)>-]|\*\*)[^\w]{0,5}@addr[^\w]{0,3}[:,]",  # "Assessor:", "Raters, please"
    r"\b@addr~(?:note|notice|message|instructions?|hinweis|nota|remarque|opmerking)[^\w]{0,3}:",  # "Assessor note:"
    r"@call~(?:\w+~){0,2}?@addr",  # "note to the relevance assessor", "dear AI evaluator"
    r"\b(?:as|als|en tant que|como|come|in qualita di|в качестве)~(?:an?|the|un|une|el|la|il|lo|o|a|de|der|die)?~(?:\w+~){0,2}?@addr\b"
    + SENTENCE + r"{0,40}?@you",
    r"\b(?:act as|acting as|pretend (?:to be|you are)|roleplay as|imagine you are|stell dir vor,? du bist|agis comme"
    r"|actua como|agisci come|aja como|gedraag je als)~(?:an?|the|ein\w*|un\w*|el|la|il|o|a|een)?~(?:\w+~){0,2}?@addr",
    r"\b@addr_strong[^\w]{0,3}:",
    r"\b(?:if you are|you are now|you are|you're|wenn du|si vous etes|si eres|se sei|se voce e|als je)~(?:an?|the|ein\w*|un\w*|el|la|il|o|a|een)?~(?:\w+~){0,2}?@addr",
    r"作为.{0,6}@addr", r"@addrとして", r"بصفتك", r"\[(?:system|sys|inst|admin|system message)\]",
    r"<\|?(?:system|im_start)\|?>", r"\bsystem~(?:prompt|message|override|instruction|note)s?\b",
    r"\b(?:you are now in|switch to)~\w+~mode\b", r"@addr~(?:reading|processing|evaluating|judging) this\b",
)

# Signs that a sentence giving a label speaks to whoever judges: someone addressed, "you", a directive,
# a pointer at this document, a dismissal of the judge's own criteria, a stated verdict.
SENTENCE_CUES = (
    alt("@addr", r"\b(?:automated|automatic|machine|relevance|search|quality|content|ranking|evaluation|grading)~"
        r"(?:readers?|checkers?|moderators?|graders?|reviewers?|evaluators?|bots?|systems?|models?|judges?|"
        r"assistants?)\b"),
    "@you",
    alt("@modal", "@verb", r"\b(?:count|regard|copy|use|is to be|are to be|mandatory|required)\b"),
    alt(r"@this~?@doc", r"\b(?:this|the)~(?:piece|write-?up|entry|one|content here|page here)\b",
        r"\bthe~@doc~(?:here|above|below)\b"),
    r"\b(?:regardless|whatever|irrespective|no matter|bypass|override|disregard|unabhangig|independientemente|"
    r"quel que soit|indipendentemente|independentemente|ongeacht)\b",
    r"\b(?:verdict|classification|evaluation note|note|urteil|verdetto|veredicto|oordeel)\b",
)

RULES: tuple[Rule, ...] = (
    Rule("override", "tells the judge to ignore its instructions", "@ovr", ("@prior", "@instr"), 45, local=True),
    Rule("override", "tells the judge to ignore its instructions", "@ovr", ("@prior_weak", "@instr_strong"), 30, local=True),
    Rule("claim", "claims to be relevant", r"(?:@this~@doc|\bthe~@doc~(?:above|below|here))\b" + SENTENCE + r"{0,25}?@be\b" + SENTENCE + r"{0,40}?@rel",
         (alt("@intens", "@query"),), 40, after_only=True, local=True),
    Rule("claim", "claims to be relevant", r"@this~?@doc" + SENTENCE + r"{0,30}?@rel",
         (alt("@intens", "@query"),), 30, after_only=True, local=True),  # scripts without a copula (ru, ar, zh, ja, ko)
    Rule("claim", "claims to be relevant", r"\bmost relevant~(?:\w+~){0,2}(?:for|to)~(?:any|every|all|each)\b", local=True),
    Rule("directive", "tells the judge which label to give",
         r"@verb~(?:\w+~){0,3}?@this~@doc\b" + SENTENCE + r"{0,50}?@label_value", local=True),
    Rule("directive", "tells the judge which label to give",
         r"\b(?:call|mark|label|rate|grade|score|classify|tag)~(?:it|this|this one)~(?:as|a)?~(?:@intens~)?"
         r"(?:@rel|[0-3]\b(?![\d,%/]|\.\d|\s?(?:/|out of|stars?|points?)))"),
    Rule("directive", "tells the judge which label to give", r"@this~?@doc", ("@addr", "@label_value"), 70, local=True),
    Rule("directive", "tells the judge which label to give",
         r"\b(?:rate|score|grade|bewerte|note|notez|califica|valuta|avalie|beoordeel|оцени)~@this~@doc~"
         r"(?:with|as|mit|als|avec|con|com|met|на)?~[0-3]\b(?![\d,%/]|\.\d|\s?(?:/|out of|stars?|points?))", local=True),
    Rule("directive", "tells the judge which label to give",
         r"@this~@doc~(?:mit|als)~(?:(?:der|einer|note|dem|wert)~)*[0-3]~(?:bewert\w*|benot\w*|einstuf\w*|markier\w*)"),
    Rule("directive", "tells the judge which label to give",
         r"\b(?:calificar|evaluar|puntuar|valorar|noter|evaluer|valutare|votare|avaliar|pontuar|classificar|rate|score|"
         r"grade)~@this~@doc~(?:with|con|avec|com|met|mit)~(?:(?:un|una|uno|a|an|um|uma|een|le|la|el|il|nota|note|"
         r"grade|score|voto)~)*[0-3]\b(?![\d,%/]|\.\d)"),
    Rule("directive", "tells the judge which label to give",
         r"@this~@doc~(?:\w+~)?@modal~(?:\w+~){0,4}?@label_value", local=True),
    Rule("directive", "tells the judge which label to give", r"@this~?@doc", ("@verb", "@label_value"), 40, local=True),  # zh, ja, ar
    Rule("label", "states its own relevance label",
         r"@this~@doc~@be~(?:an?~)?[0-3]~(?:[.!;)]|$|out of 3|/ ?3)"),
    Rule("label", "states its own relevance label",
         r"\b(?:relevance|relevanz|pertinence|relevancia|rilevanza|relevantie|label)[^\w]{0,2}[:=] ?"
         r"(?:@rel|[0-3](?:[.!;,]? |[.!;,]?$))", local=True),
    Rule("claim", "claims to be relevant",
         r"@this~@doc~(?:\w+~)?(?:answers|beantwortet|repond\w*|respond\w*|rispond\w*|beantwoordt|отвечает)~"
         r"(?:\w+~){0,3}?@query", (alt("@intens", "@top", "@label_value"),), 60, after_only=True),
    Rule("claim", "claims to be relevant", r"\b(?:deserves?|merits?|verdient|merite|merece|merita|заслуживает)"
         r"~(?:\w+~){0,2}?@label_value", ("@this~@doc",), 80, local=True),
    Rule("label", "states its own relevance label",
         r"(?:@gradeword|correct label|right label|correct answer)~(?:\w+~)?(?:for|of|de|di|von|van|для)~"
         r"@this~@doc~(?:is|=|:|est|es|e|ist|равн\w*)~(?:\w+~)?[0-3]\b"),
    Rule("answer", "dictates the judge's answer",
         r"\b(?:respond|reply|answer|output|return|say|print)~(?:only|just|simply)?~(?:with|:)?~"
         r"(?:the word~)?[\"'“”‘’«»]~(?:highly |perfectly )?relevant~[\"'“”‘’«»]", local=True),
    Rule("answer", "dictates the judge's answer",
         r"\b(?:respond|reply|answer|output)~(?:only|just|simply)~(?:with)?~:?~(?:highly |perfectly )?relevant~(?:[.!]|$)", local=True),
    Rule("answer", "dictates the judge's answer",
         r"\b(?:respond|reply|answer|antworte\w*|reponds|repondez|responde|responda|rispondi|risponda|antwoord"
         r"|ответь\w*)~(?:only|nur|seulement|solo|solamente|apenas|alleen|только)?~"
         r"(?:with|mit|par|con|com|met|que|that|dass|che|dat|что)~:?~(?:it is|es|est|is|ist|e)?~(?:@intens~)?"
         r"@rel~(?:[.!;,)]|$)", local=True),
    Rule("override", "tells the judge to ignore its instructions", "@ovr",
         (r"\b(?:before|previously|earlier|vorher|zuvor|avant|auparavant|antes|prima|eerder|раньше|ранее)\b|قبل",
          r"\b(?:told|said|gesagt|dit|dicho|dijeron|detto|disse|gezegd|сказал\w*)\b", "@label_value"), 80, local=True),
    Rule("claim", "claims to be relevant",
         r"\b(?:this|that|it|das|dies|c'?est|ceci|esto|este|esta|questo|questa|isso|dit|het)~(?:(?:is|ist|est|es|e)~)?"
         r"(?:the|a|an|ein\w*|un|une|uno|una|um|uma|een|le|la|el|il|o)~(?:(?:@intens|most|@top)~)*"
         r"(?:@rel~(?:\w+~)?@doc|@doc~(?:@intens~)?@rel)", (alt("@intens", "@query", "@top", r"\bmost\b"),), 50),
    Rule("directive", "tells the judge which label to give",
         r"\b(?:mark|label|classify|rate|grade|tag|flag|score|categori[sz]e|markier\w*|einstuf\w*|bewert\w*|"
         r"kennzeichn\w*|klassifizier\w*|marquer|marquez|classer|classez|etiquet\w*|notez|noter|marca\w*|marcar|"
         r"clasific\w*|califi\w*|segna\w*|classific\w*|valut\w*|etichett\w*|rotul\w*|avali\w*|markeer\w*|"
         r"classificeer\w*|beoordeel\w*|отмет\w*|помет\w*|оцени\w*|классифиц\w*)~(?:\w+~){0,2}?"
         r"(?:as|als|comme|como|come|как)~(?:@intens~)?@rel"),
    Rule("directive", "tells the judge which label to give",
         r"\bals~(?:@intens~)?@rel~(?:\w+~)?(?:markieren|einstufen|bewerten|kennzeichnen|werten|betrachten|ansehen|"
         r"behandeln|klassifizieren)\b", local=True),
    Rule("address", "addresses the assessor about the label",
         r"@addr_strong~(?:\w+~){0,3}?@modal~(?:\w+~){0,2}?(?:@verb|pick|choose|select|put|place|answer|output|say)\b",
         ("@label_value",), 80, local=True),
    Rule("override", "tells the judge to ignore its instructions",
         r"\b(?:new|updated|revised|real|actual|neue|nouvelles?|nuevas?|nuove|novas?|nieuwe|новые)~"
         r"(?:instructions?|anweisung\w*|consignes?|instrucciones|istruzioni|instrucoes|instructies|инструкци\w*|task|aufgabe)"
         r"[^\w]{0,2}:", ("@label_value",), 120, local=True),
    Rule("override", "tells the judge to ignore its instructions",
         r"@prior~@instr~(?:\w+~)?(?:no longer apply|are void|are cancell?ed|do not apply|don't apply|are obsolete|"
         r"gelten nicht mehr|sont annulees|ne s'appliquent plus|ya no (?:aplican|valen)|non valgono piu|"
         r"nao se aplicam|gelden niet meer)", local=True),
    Rule("override", "tells the judge to ignore its instructions",
         r"\b(?:do not|don't|never|stop|ne|no|non|niet|не)~(?:follow\w*|obey\w*|suivez|suis|sigas|siga|segui\w*|volg\w*|"
         r"следуй\w*)~(?:\w+~){0,2}?@instr|\bbefolge\w*~(?:\w+~){0,2}?@instr~nicht\b", ("@label_value",), 100, local=True),
    Rule("override", "tells the judge to ignore its instructions",
         r"\b(?:from now on|ab sofort|ab jetzt|von nun an|desormais|dorenavant|a partir de ahora|de ahora en adelante|"
         r"d'ora in poi|da ora in poi|a partir de agora|vanaf nu|отныне|с этого момента)\b", ("@you", "@label_value"), 80, local=True),
    Rule("label", "states its own relevance label",
         r"\b(?:final answer|answer|verdict|output|judgment|decision|antwort|urteil|reponse|respuesta|veredicto|risposta|"
         r"resposta|antwoord|ответ|oordeel)[^\w]{0,2}[:=] ?(?:@intens )?@rel ?(?:[.!;,\"'}]|$)", local=True),
    Rule("label", "states its own relevance label",
         r"[\"' ]{0,3}(?:relevance|relevanz|relevance_score|relevance_grade)[\"' ]{0,3}: ?[\"' ]{0,3}(?:@rel|[0-3])"
         r"[\"' ]{0,3}[,}]", local=True),
    Rule("address", "addresses the assessor about the label", VOCATIVE, ("@label_value",), 160, local=True),
    # the sentence around a label given: three kinds of sign that it is said to the judge
    Rule("address", "addresses the assessor about the label", "@label_value", cues=SENTENCE_CUES, min_cues=3,
         window=150, sentence=True, local=True),
    Rule("address", "addresses the assessor about the label",
         r"\b(?:judges?|llms?|graders?|assessors?|evaluators?|raters?)~@modal~(?:\w+~)?"
         r"(?:output|answer|respond|reply|return|say|print|assign|give)\b", ("@label_value",), 80, local=True),
)

MACRO_SEP = r"[^\w]{0,5}"


def expand(source: str, vocab: Optional[dict[str, str]] = None) -> str:
    """``source`` with ``~`` and ``@name`` replaced (names longest first, so ``@prior_weak`` is
    not ``@prior`` + ``_weak``)."""
    vocab = VOCAB if vocab is None else vocab
    out = source
    for _ in range(3):  # a vocabulary may use another (label uses rel, gradeword, top)
        for name in sorted(vocab, key=len, reverse=True):
            out = out.replace("@" + name, vocab[name])
    return out.replace("~", MACRO_SEP)
