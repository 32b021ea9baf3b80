from django.urls import path

from characterisation import views

app_name = "characterisation"
urlpatterns = [
    path("assess/characterisations/<int:pk>/", views.characterise_continue, name="characterise_continue"),
    path("assess/characterisations/<int:pk>/items/<int:number>/", views.characterise, name="characterise"),
    path("campaigns/<int:pk>/characterisation/", views.characterisation_page, name="characterisation"),
]
