"""The small closed lists model-free discovery leans on: general Chinese, not any one book.

Surnames, titles and honorifics, the verbs that follow a speaker, the words that mark a place or a
role noun, and the name endings that mark a place, an organisation, an item or a technique. They
describe the language of Chinese fiction (classical and web novels alike), so they carry over to a
book never seen; nothing here names a character of a particular novel.
"""

from __future__ import annotations


def _words(text: str) -> list[str]:
    return text.split()


# the most common single-character surnames (百家姓 order of frequency) and compound ones
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝"
    "龚邵万钱严覃武戴孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞"
    "左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕"
    "屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧"
    "闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝萧楚燕"
)
COMPOUND_SURNAMES = frozenset(
    _words(
        "司马 诸葛 夏侯 欧阳 上官 慕容 公孙 东方 令狐 皇甫 长孙 宇文 尉迟 独孤 南宫 西门 轩辕 端木"
        " 百里 呼延 太史 申屠 东郭 司徒 司空 万俟 澹台 公冶 拓跋 钟离 闻人 赫连 完颜"
    )
)

# titles and honorifics: never a name on their own, but a name stands right before them
TITLES = _words(
    "老爷 少爷 姑娘 小姐 夫人 公子 长老 真人 道长 道人 大师 大师兄 二师兄 师兄 师弟 师姐 师妹 师父"
    " 师傅 师尊 师叔 师伯 前辈 先生 将军 丞相 太守 刺史 都督 元帅 大王 娘娘 陛下 殿下 大人 皇叔"
    " 宗主 掌门 族长 城主 阁主 堂主 长官 老师 同学 哥哥 姐姐 弟弟 妹妹 大哥 二哥 三弟 贤弟 兄长"
    " 老祖 上人 仙子 圣女 圣子 少主 家主 皇帝 太子 公主 国王 王爷 主公 天子 爷爷 奶奶 叔叔 阿姨"
    " 员外 太尉 太师 太傅 司徒 司空 长史 军师 侍郎 尚书 大夫 总管 护法 使者 道友 兄弟"
)
# what follows a surname to address one person: the titles, and the short forms and jobs of
# modern prose (「苏总」「李队」「赵少」「白秘书」「钱掌柜」)
SURNAME_TITLES = frozenset(
    TITLES
    + _words(
        "总 董 局 队 少 哥 姐 爷 叔 婶 老板 秘书 经理 总裁 董事长 警官 队长 组长 医生 教授 掌柜"
        " 门主 少门主 宗主 家主 师兄 师姐 师弟 师妹 公子 小姐 先生 老师 同学 大夫 司令 首长"
    )
)
# common role and kinship nouns that stand where a name stands (「那和尚道」) but name no one
ROLE_NOUNS = frozenset(
    TITLES
    + _words(
        "和尚 妖精 妖怪 妖魔 徒弟 弟子 兄弟 众人 众将 军士 小妖 女子 男子 老者 童子 呆子 猴子 怪物"
        " 魔王 魔头 道士 僧人 众僧 官员 百姓 军马 士卒 使者 左右 母亲 父亲 孩儿 妇人 主人 客人 少年"
        " 少女 老人 大汉 汉子 贼人 敌军 大军 人马 对方 众人 众妖 神仙 仙人 老头 小子 家伙 那人 此人"
        " 贫僧 贫道 老孙 老夫 在下 本座 小人 奴婢 臣妾 兄台 诸位 列位 二人 三人 两人 众位 众官"
        " 皇后 太后 先锋 太保 太尉 都尉 校尉 部将 群臣 驿丞 功曹 城隍 土地 龙王 大仙 天王 员外 掌柜"
        " 小二 管家 侍卫 丫鬟 丫头 护卫 长辈 晚辈 师祖 祖师 宫女 太监 官差 捕快 县令 知府 皇上"
        " 文武 百官 诸将 众臣 明公 足下 阁下 主上 圣上"
        # the people of modern prose named by what they are
        " 寡人 朕 本王 本宫 老子 男人 女人 男孩 女孩 青年 中年人 老板 司机 保安 服务员 警察 医生 护士 学生 记者 路人 众弟子"
    )
)

# words for one role: a surname with either names the same person (「沙僧」「沙和尚」)
ROLE_SYNONYMS = (("僧", "和尚", "长老", "法师", "师父"), ("道士", "道人", "道长"))

# a character after a speaker: 「X道」「X笑道」「X曰」
SPEAKER_NEXT = frozenset("道曰说笑问答叫喝骂哭叹")
# characters around a person more than around other words: 「令关兴」「唤X」「被X」「X引兵」「X大怒」
NAME_PREV = frozenset(
    "令唤命请见与被遣使差教叫问谓拜随说杀斩擒助投着向对给让跟同朝替帮陪找喊揽盯瞪"
)
# …and the gestures of modern prose: 「X握紧」「X转身」「X皱眉」「X点头」
NAME_NEXT = SPEAKER_NEXT | frozenset(
    "引领率为之也亦乃便却又即遂见听闻看急忙大握转望抬低停皱深轻缓沉嘴微点摇"
    # a person's body and moves in modern prose, where few names are followed by 道/曰:
    # 「X站在」「X冲过来」「X愣了」「X脸色一变」「X眼睛一亮」「X心里」
    "站走跑冲扑举拿拉推拍抱扶伸凑蹲坐躺跪靠挥踢咬叹愣瞪盯扫瞥眯挑撇吸喘哼冷淡脸眼心"
)
# neighbours that say nothing about where a word ends (「在X」「X的」): for boundary entropy
# each counts as a distinct neighbour, so a name always written 「在青云宗」 is not a fragment
OPEN_NEIGHBOURS = frozenset("在到往至入出回于从向对与和跟同被把将给让的了着是也都就又")
# a character before a place: 「到X」「往X」「在X」
PLACE_PREV = frozenset("到往至在入出回离赴进奔投于自从居")
# a character before a role noun but rarely before a name: 「那和尚」「这妖精」「老和尚」「小妖」
MODIFIER_PREV = frozenset("的个那这些众每各位只两三老小一座")
# a pronoun before a string marks an adverb or verb (「你且莫」「你可曾」), not a name
PRONOUN_PREV = frozenset("你我他她它您")

PLACE_SUFFIX = frozenset(
    "山城州国关洞河江寺府县郡宫殿村镇峰谷岛洲庄堡观楼塔崖岭海湖林园京都庙岗坡泉"
)
ORG_SUFFIX = ("宗", "门", "派", "帮", "会", "教", "盟", "阁", "堂", "军", "营", "司", "院", "卫")
ITEM_SUFFIX = frozenset("剑刀枪棒棍戟钯杖珠印鼎炉钟镜旗幡袍甲衣扇铃瓶鞭锤斧弓箭丹符环")
TECH_SUFFIX = (
    "剑法",
    "刀法",
    "枪法",
    "心法",
    "大法",
    "神通",
    "神功",
    "拳",
    "掌",
    "诀",
    "术",
    "功",
    "咒",
    "阵",
)

# a single-character (or two) start or end no name has: pronouns, particles, numbers, verbs
BAD_START = frozenset(
    "的了着是在不也都就又把被这那其之我你他她它们此何谁某每几也乃即便却等与和向对众群诸满一莫休饶蒙万连"
    "甚怎啥"
)
# characters no name holds in its middle (「捻着诀」)
BAD_INSIDE = frozenset("着了的之")
# strings of direction characters only (「东南」「西北」) name no place
DIRECTIONS = frozenset("东南西北中上下左右前后内外")
BAD_END = frozenset("的了着是在不也都就又把被们道曰说笑问呢吗吧啊么之与和及等")

# names are introduced: 「姓刘，名备，字玄德」「名叫林动」「唤做悟空」「法名三藏」
INTRO_MARKERS = (
    "名叫",
    "叫做",
    "叫作",
    "唤做",
    "唤作",
    "名唤",
    "法名",
    "道号",
    "名为",
    "人称",
    "号称",
    "绰号",
)

# rjieba's part-of-speech tags that name something (person, place, organisation, other proper)
PROPER_TAGS = frozenset({"nr", "nrfg", "nrt", "ns", "nt", "nz"})
NOUN_TAGS = PROPER_TAGS | {"n", "ng", "j", "nrfg"}


def has_surname(word: str) -> bool:
    """Whether ``word`` begins with a surname and has room for a given name after it."""
    if word[:2] in COMPOUND_SURNAMES:
        return 3 <= len(word) <= 4
    return word[0] in SURNAMES and 2 <= len(word) <= 3
