ByJLÙÙð>mmmmýýYYYYMbbbb	]]]]IccccÇ----bbbb			5555

2222FFF|}~~~~