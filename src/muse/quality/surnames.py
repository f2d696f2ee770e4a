"""Chinese surnames, for telling a coined person name from a coined ordinary word.

A person a writer invents almost always carries a surname (林远, 慕容秋); an unknown two- or
three-character word the tagger calls a person (湛湛, 开根, 马上遥) almost never starts with one
by design, and the unknown-entity advice (``entities.py``) keeps only the former. The lists are
the common single surnames of the traditional 百家姓 and the modern frequency tables, and the
compound surnames of 百家姓 (public domain), without the single ones that are mostly ordinary
characters in prose (那、有、从、和、明、平、元、成、方、云 …): a name with such a surname is
missed, a far smaller cost on real prose than the noise they bring (那童儿, 有沛国, 明湛湛);
likewise the compound ones that are ordinary words or titles (东方, 第五, 司徒, 百里, 单于, 东门).

``TITLES``: what a surname is followed by when it addresses a person rather than naming one.
"""

from __future__ import annotations

SINGLE = frozenset(
    "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华魏陶姜戚谢邹喻柏窦苏潘葛奚范彭郎鲁韦昌马"
    "苗凤俞任袁柳酆鲍史唐费廉岑薛雷贺倪汤滕殷罗毕郝邬傅皮卞齐康伍余卜顾孟黄穆萧尹姚邵湛汪祁毛禹狄米贝"
    "臧伏戴谈宋茅庞熊纪舒屈项祝董梁杜阮蓝闵席季麻强贾路娄危江童颜郭梅盛林刁钟徐邱骆高夏蔡田樊胡凌霍虞"
    "柯昝管卢莫房裘缪宗丁宣贲邓郁单杭洪包诸左石崔吉钮龚程嵇邢滑裴陆荣翁荀羊惠甄封芮羿储靳汲邴糜段富巫"
    "焦巴弓牧隗侯宓蓬郗班仰秋仲伊宫宁仇栾暴甘厉戎祖武符刘景詹束龙叶韶郜黎蓟白怀蒲邰鄂索咸籍赖卓蔺屠蒙"
    "池乔阴胥翟谭申桑牛燕尚温庄柴阎艾鱼廖庾耿欧冷辛曾沙关游权岳"
)
COMPOUND = frozenset(
    [
        "万俟",
        "司马",
        "上官",
        "欧阳",
        "夏侯",
        "诸葛",
        "闻人",
        "赫连",
        "皇甫",
        "尉迟",
        "公羊",
        "澹台",
        "公冶",
        "宗政",
        "濮阳",
        "淳于",
        "太叔",
        "申屠",
        "公孙",
        "仲孙",
        "轩辕",
        "令狐",
        "钟离",
        "宇文",
        "长孙",
        "慕容",
        "鲜于",
        "闾丘",
        "亓官",
        "司寇",
        "子车",
        "颛孙",
        "端木",
        "巫马",
        "公西",
        "漆雕",
        "乐正",
        "壤驷",
        "公良",
        "拓跋",
        "夹谷",
        "宰父",
        "谷梁",
        "段干",
        "东郭",
        "呼延",
        "羊舌",
        "微生",
        "梁丘",
        "左丘",
        "南宫",
        "独孤",
        "公輸",
    ]
)


def surname_of(word: str) -> str | None:
    """The surname ``word`` starts with (compound first), or None."""
    if word[:2] in COMPOUND:
        return word[:2]
    if word[:1] in SINGLE:
        return word[:1]
    return None


# a surname with these after it addresses a person by title or kinship (司马太尉、刘郎、卞氏、
# 宣王), or counts people (朱二人): no given name, so no new name
TITLES = frozenset(
    [
        "太尉",
        "丞相",
        "将军",
        "司徒",
        "司空",
        "太守",
        "刺史",
        "都督",
        "先生",
        "夫人",
        "公子",
        "小姐",
        "老爷",
        "大人",
        "娘子",
        "姑娘",
        "太后",
        "皇后",
        "主公",
        "元帅",
        "校尉",
        "军师",
        "侍郎",
        "尚书",
        "大夫",
        "使君",
        "长老",
        "道长",
        "师父",
        "师兄",
        "师姐",
        "师妹",
        "师弟",
        "掌门",
        "宗主",
        "总裁",
        "老板",
        "经理",
        "医生",
        "老师",
        "同学",
        "警官",
        "队长",
        "阿姨",
        "叔叔",
        "大哥",
        "大姐",
        "老头",
        "老太",
        # kin and household forms of address (红楼梦: 薛大爷, 林姐儿, 诸姊妹)
        "大爷",
        "二爷",
        "三爷",
        "少爷",
        "姐儿",
        "哥儿",
        "姊妹",
        "姐妹",
        "兄弟",
        "奶奶",
        "太太",
        "嫂子",
        "大娘",
        "大嫂",
        "二哥",
        "二姐",
        "哥哥",
        "姐姐",
        "弟弟",
        "妹妹",
        "爷爷",
        "婆婆",
        "大叔",
        "大婶",
        # posts and callings a surname goes with (水浒传: 张教头, 鲁提辖, 刘太公)
        "教头",
        "提辖",
        "员外",
        "太公",
        "庄主",
        "押司",
        "都头",
        "知府",
        "知县",
        "头领",
        "寨主",
        "和尚",
        "法师",
        "禅师",
        "道人",
        "真人",
        "掌柜",
        "官人",
        "孔目",
        "团练",
        "虞候",
        "保正",
        "老儿",
        "老汉",
        "老丈",
        # rulers and immortals named by a surname or a clan (封神演义: 轩辕皇帝, 张天君)
        "皇帝",
        "天子",
        "大王",
        "国王",
        "天君",
        "娘娘",
        "圣母",
        "仙姑",
    ]
)


# a one-character "given name" that is a verb of speech: the sentence going on after a surname
# that is also a word or a short name (「闻人报：“大爷进来了。”」: someone was heard reporting)
SAID = frozenset("报说道言曰谓问答告")


def title_straddled(text: str, end: int) -> bool:
    """Whether the name ending at ``end`` in ``text`` ends with the first character of a title
    the text goes on with: 张天 + 君 is 张天君 (张 and 天君, an address), 王老 + 爷 is 王老爷."""
    return any(text[end - 1 : end + k] in TITLES for k in (1, 2))
