# Ünïcödé comments: 日本語 😀
locals {
  ñame = 1
  plain = 2
  emoji = "😀🎉" # trailing after emoji
  cjk = "日本語テキスト"
  combining = "e\u0301"
  obj = {
    "日本" = 1
    ab = 2
    "💃🏿" = 3
    x = 4
  }
  ünicode_ident = 5
  ab = 6
}
