"""Chinese surnames, for telling a coined person name from a coined ordinary word.

A person a writer invents almost always carries a surname (林远, 慕容秋); an unknown two- or
three-character word the tagger calls a person (湛湛, 开根, 马上遥) almost never starts with one
by design, and the unknown-entity advice (``entities.py``) keeps only the former. The lists are
the common single surnames of the traditional 百家姓 and the modern frequency tables, and the
compound surnames of 百家姓 (public domain), without the rarest single ones that are also common
function characters (于 is kept: it is frequent enough as a name to matter).
"""

from __future__ import annotations

SINGLE = frozenset(
    "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜戚谢邹喻柏水窦章云苏潘葛"
    "奚范彭郎鲁韦昌马苗凤花方俞任袁柳酆鲍史唐费廉岑薛雷贺倪汤滕殷罗毕郝邬安常乐于时傅皮卞齐康"
    "伍余元卜顾孟平黄和穆萧尹姚邵湛汪祁毛禹狄米贝明臧计伏成戴谈宋茅庞熊纪舒屈项祝董梁杜阮蓝闵"
    "席季麻强贾路娄危江童颜郭梅盛林刁钟徐邱骆高夏蔡田樊胡凌霍虞万支柯昝管卢莫经房裘缪干解应宗"
    "丁宣贲邓郁单杭洪包诸左石崔吉钮龚程嵇邢滑裴陆荣翁荀羊惠甄曲家封芮羿储靳汲邴糜松井段富巫乌"
    "焦巴弓牧隗山谷车侯宓蓬全郗班仰秋仲伊宫宁仇栾暴甘厉戎祖武符刘景詹束龙叶幸司韶郜黎蓟薄印宿"
    "白怀蒲邰从鄂索咸籍赖卓蔺屠蒙池乔阴胥能苍双闻莘党翟谭贡劳逄姬申扶堵冉宰郦雍却璩桑桂濮牛寿"
    "通边扈燕冀郏浦尚农温别庄晏柴瞿阎充慕连茹习宦艾鱼容向古易慎戈廖庾终暨居衡步都耿满弘匡国文"
    "寇广禄阙东欧殳沃利蔚越夔隆师巩厍聂晁勾敖融冷訾辛阚那简饶空曾毋沙乜养鞠须丰巢关蒯相查后荆"
    "红游竺权逯盖益桓公岳帅缑亢况郈有琴商牟佘佴伯赏墨哈谯笪年爱阳佟"
)
COMPOUND = frozenset(
    "万俟 司马 上官 欧阳 夏侯 诸葛 闻人 东方 赫连 皇甫 尉迟 公羊 澹台 公冶 宗政 濮阳 淳于 单于 "
    "太叔 申屠 公孙 仲孙 轩辕 令狐 钟离 宇文 长孙 慕容 鲜于 闾丘 司徒 司空 亓官 司寇 子车 颛孙 "
    "端木 巫马 公西 漆雕 乐正 壤驷 公良 拓跋 夹谷 宰父 谷梁 段干 百里 东郭 南门 呼延 羊舌 微生 "
    "梁丘 左丘 东门 西门 南宫 独孤 北堂 第五 公輸 慕容".split()
)


def surname_of(word: str) -> str | None:
    """The surname ``word`` starts with (compound first), or None."""
    if word[:2] in COMPOUND:
        return word[:2]
    if word[:1] in SINGLE:
        return word[:1]
    return None
